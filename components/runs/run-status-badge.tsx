import { Badge, type BadgeTone } from '@/components/ui/badge';
import type { RunStatus } from '@/lib/domain/runs/service';

const statuses: Record<RunStatus, { label: string; tone: BadgeTone }> = {
  queued: { label: 'Queued', tone: 'neutral' },
  running: { label: 'Running', tone: 'info' },
  succeeded: { label: 'Succeeded', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
};

export const runIsActive = (status: RunStatus) => status === 'queued' || status === 'running';

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
