import type { NotificationEvent } from '@/lib/domain/notifications/service';

// The readable message a Slack-compatible incoming webhook receives:
// {"text": ...} with Slack's mrkdwn links (<url|label>).

type Ref = { name?: string; url?: string; uid?: string };

const link = (ref: Ref | undefined, fallback: string) => (ref?.url ? `<${ref.url}|${ref.name ?? fallback}>` : (ref?.name ?? fallback));

export function slackMessage(event: NotificationEvent): { text: string } {
  const data = event.data as {
    factory?: Ref;
    webhook?: Ref;
    health?: { reason?: string };
    run?: Ref & { error?: string };
    automation?: Ref;
    delivery?: { eventType?: string | null } | null;
    error?: string;
    message?: string;
    connection?: { missing?: number; redelivered?: number; failures?: number; error?: string };
  };
  // Sender-chosen text: kept in a code span with its backticks removed, so it cannot break out into mrkdwn links.
  const eventType = data.delivery?.eventType ? ` on a \`${data.delivery.eventType.replace(/[`<>]/g, '')}\` delivery` : '';
  const factory = data.factory?.name ?? 'a factory';
  const webhook = link(data.webhook, 'a webhook');
  const reason = data.health?.reason ? `: ${data.health.reason}` : '';
  const lines: Record<string, string> = {
    'webhook.failing': `:red_circle: Webhook ${webhook} in ${factory} is failing authentication${reason}.`,
    'webhook.rate_limited': `:large_orange_circle: Webhook ${webhook} in ${factory} is rate limited${reason}.`,
    'webhook.silent': `:large_yellow_circle: Webhook ${webhook} in ${factory} is silent${reason}.`,
    'webhook.recovered': `:large_green_circle: Webhook ${webhook} in ${factory} has recovered${reason}.`,
    'webhook.secret_rotated': `:key: The secret of webhook ${webhook} in ${factory} was rotated. Senders need the new secret.`,
    'connection.missed_deliveries': `:inbox_tray: A recovery pass found ${data.connection?.missing ?? 'some'} missed deliveries for webhook ${webhook} in ${factory} and asked the sender for ${data.connection?.redelivered ?? 0} of them again.`,
    'connection.failing': `:red_circle: The recovery passes of webhook ${webhook} in ${factory} failed ${data.connection?.failures ?? 3} times running${data.connection?.error ? `: ${data.connection.error.replace(/[`<>]/g, '')}` : ''}.`,
    'run.failed': `:x: A run of ${link(data.automation, 'an automation')}${eventType} in ${factory} failed after its last attempt${data.run?.error ? `: ${data.run.error}` : ''}. ${data.run?.url ? `<${data.run.url}|Open the run>` : ''}`.trim(),
    'definitions.apply_failed': `:warning: Applying the definitions of ${factory} failed${data.error ? `: ${data.error}` : ''}.`,
    'notification.test': `:wave: ${data.message ?? 'Test notification from Tripline.'} (${factory})`,
  };
  return { text: lines[event.type] ?? `Tripline: ${event.type} in ${factory}` };
}
