import { Badge, type BadgeTone } from '@/components/ui/badge';
import { isActiveRunStatus, type RunStatus } from '@/lib/domain/run-status/statuses';

const statuses: Record<RunStatus, { label: string; tone: BadgeTone }> = {
  queued: { label: 'Queued', tone: 'neutral' },
  running: { label: 'Running', tone: 'info' },
  succeeded: { label: 'Succeeded', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  pending: { label: 'Pending', tone: 'neutral' },
  waiting: { label: 'Waiting', tone: 'neutral' },
  debouncing: { label: 'Debouncing', tone: 'neutral' },
  throttled: { label: 'Throttled', tone: 'warning' },
  superseded: { label: 'Superseded', tone: 'neutral' },
  debounced: { label: 'Debounced', tone: 'neutral' },
  skipped: { label: 'Skipped', tone: 'warning' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

/** Not yet in a final state: the page refreshes while it shows one. */
export const runIsActive = isActiveRunStatus;

export function RunStatusBadge({ status }: { status: RunStatus }) {
  const { label, tone } = statuses[status];
  return (
    <Badge tone={tone} dot>
      {label}
    </Badge>
  );
}

/** Marks a run an admin's replay of its delivery started (not the delivery's arrival). */
export function ReplayBadge() {
  return (
    <Badge tone="accent" title="Started when an admin replayed the delivery">
      Replay
    </Badge>
  );
}
