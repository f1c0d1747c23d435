import { Badge, type BadgeTone } from '@/components/ui/badge';
import { healthLabels, type HealthState } from '@/lib/domain/health/classify';

const tones: Record<HealthState, BadgeTone> = {
  healthy: 'success',
  failing_auth: 'danger',
  rate_limited: 'warning',
  rejecting_payloads: 'warning',
  silent: 'warning',
  new: 'neutral',
};

/** A webhook's health (lib/domain/health), with its reason as the tooltip. */
export function HealthBadge({ state, reason }: { state: HealthState; reason?: string }) {
  return (
    <Badge tone={tones[state]} dot title={reason} data-health={state}>
      {healthLabels[state]}
    </Badge>
  );
}
