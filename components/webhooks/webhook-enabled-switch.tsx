'use client';

import { EnabledSwitch } from '@/components/enabled-switch';
import { setWebhookEnabledAction } from '@/lib/domain/webhooks/actions';

export function WebhookEnabledSwitch({ factorySlug, uid, enabled }: { factorySlug: string; uid: string; enabled: boolean }) {
  return (
    <EnabledSwitch
      enabled={enabled}
      description="Disabled webhooks answer 404 and start nothing; their history is kept."
      save={(next) => setWebhookEnabledAction(factorySlug, { uid, enabled: next })}
    />
  );
}
