'use client';

import { DeleteSection } from '@/components/ui/delete-section';
import { deleteWebhookAction } from '@/lib/domain/webhooks/actions';
import { reach } from '@/components/forms/reach';

const consequences = 'Senders get 404 immediately. Automations whose trigger selects it stay visible but stop firing. The delivery history is kept.';

export function DeleteWebhook({ factorySlug, uid, name, managed = false }: { factorySlug: string; uid: string; name: string; managed?: boolean }) {
  return (
    <DeleteSection
      label="Delete webhook"
      confirmTitle={`Delete ${name}?`}
      consequences={managed ? `${consequences} Its definition file, webhooks/${name}.yaml, is removed.` : consequences}
      remove={() => reach(deleteWebhookAction)(factorySlug, { uid })}
      redirectTo={`/f/${factorySlug}/automations/webhooks`}
    />
  );
}
