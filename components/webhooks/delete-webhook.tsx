'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { ConfirmDialog } from '@/components/ui/dialog';
import { deleteWebhookAction } from '@/lib/webhooks/actions';

const consequences = 'Senders get 404 immediately. Automations whose trigger selects it stay visible but stop firing. The delivery history is kept.';

export function DeleteWebhook({ factorySlug, uid, name, managed = false }: { factorySlug: string; uid: string; name: string; managed?: boolean }) {
  const description = managed ? `${consequences} Its definition file, webhooks/${name}.yaml, is removed.` : consequences;
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);

  const remove = async () => {
    setError(null);
    const result = await deleteWebhookAction(factorySlug, { uid });
    if (!result.ok) {
      setError(result.error.message);
      return;
    }
    router.push(`/f/${factorySlug}/automations/webhooks`);
  };

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-start justify-between gap-x-6 gap-y-3">
        <div className="min-w-0 flex-1">
          <h3 className="font-medium text-fg">Delete webhook</h3>
          <p className="mt-0.5 max-w-2xl text-fg-muted">{description}</p>
        </div>
        <ConfirmDialog
          trigger="Delete webhook"
          title={`Delete ${name}?`}
          description={description}
          confirmLabel="Delete webhook"
          onConfirm={remove}
        />
      </div>
      {error ? <Alert tone="danger">{error}</Alert> : null}
    </div>
  );
}
