import { Badge } from '@/components/ui/badge';
import type { WebhookState } from '@/lib/domain/webhooks/service';

const states: Record<WebhookState, { label: string; tone: 'success' | 'neutral' | 'warning' }> = {
  enabled: { label: 'Enabled', tone: 'success' },
  disabled: { label: 'Disabled', tone: 'neutral' },
  awaiting_secret: { label: 'Awaiting secret', tone: 'warning' },
};

/** The webhook's state, plus a second badge while a changed team secret waits to be applied. */
export function WebhookBadges({ state, secretChangePending }: { state: WebhookState; secretChangePending: boolean }) {
  const { label, tone } = states[state];
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      <Badge tone={tone} dot>
        {label}
      </Badge>
      {secretChangePending ? <Badge tone="warning">Secret change pending</Badge> : null}
    </span>
  );
}
