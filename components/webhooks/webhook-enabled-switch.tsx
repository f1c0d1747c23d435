'use client';

import { EnabledSwitch } from '@/components/enabled-switch';
import { setWebhookEnabledAction } from '@/lib/domain/webhooks/actions';
import { reach } from '@/components/forms/reach';

export function WebhookEnabledSwitch({ factorySlug, uid, enabled }: { factorySlug: string; uid: string; enabled: boolean }) {
  return (
    <EnabledSwitch
      enabled={enabled}
      description="Disabled webhooks answer 404 and start nothing; their history is kept."
      save={(next) => reach(setWebhookEnabledAction)(factorySlug, { uid, enabled: next })}
    />
  );
}
