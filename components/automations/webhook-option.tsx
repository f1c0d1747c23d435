import { Badge } from '@/components/ui/badge';
import type { TriggerWebhook } from '@/lib/domain/automations/service';
import type { WebhookState } from '@/lib/domain/webhooks/service';

// A webhook as a trigger names it: by name, with its UID kept behind. A
// trigger whose webhook was deleted stays on the automation, marked, and
// never fires (the ingress answers 404 for it).

export type WebhookOptionState = WebhookState | 'deleted' | 'missing';
export type WebhookOption = { uid: string; name: string | null; state: WebhookOptionState };

export const firesNever = (state: WebhookOptionState) => state === 'deleted' || state === 'missing';

/** A saved trigger's webhook as an option of the editor's picker. */
export function triggerWebhookOption(webhook: TriggerWebhook): WebhookOption {
  return { uid: webhook.uid, name: webhook.name, state: webhook.state === 'live' ? 'enabled' : webhook.state };
}

export function webhookOptionLabel(webhook: WebhookOption): string {
  const name = webhook.name ?? webhook.uid;
  switch (webhook.state) {
    case 'disabled':
      return `${name} (disabled)`;
    case 'awaiting_secret':
      return `${name} (awaiting secret)`;
    case 'deleted':
      return `${name} (deleted)`;
    case 'missing':
      return `${name} (unknown webhook)`;
    default:
      return name;
  }
}

/** The mark on a trigger that cannot start runs as things stand. */
export function TriggerWebhookBadge({ state }: { state: WebhookOptionState }) {
  if (firesNever(state)) {
    return (
      <Badge tone="danger" dot>
        Webhook {state === 'deleted' ? 'deleted' : 'not found'} — never fires
      </Badge>
    );
  }
  if (state === 'disabled') return <Badge tone="neutral">Webhook disabled</Badge>;
  if (state === 'awaiting_secret') return <Badge tone="warning">Webhook awaiting secret</Badge>;
  return null;
}
