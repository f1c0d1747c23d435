import { metrics } from '@/lib/platform/metrics';
import { wakeScheduler } from '@/lib/domain/run-control/wake';

// What follows in this process when runs end outside the scheduler (a worker
// records an outcome, the sweep ends abandoned runs, a member cancels): the
// statement that ended them marked their groups dirty (dirty.ts); this wakes
// the process's scheduler so that it decides them at once, and counts those
// under run control that ended Cancelled, since the scheduler counts only the
// ones it cancels itself.

/** A run a statement ended (its new status), as its RETURNING gives it. */
export type EndedRun = { controlKey: string | null; status: string };

export function controlledRunsEnded(rows: readonly EndedRun[]): void {
  const controlled = rows.filter((row) => row.controlKey !== null && row.status !== 'queued' && row.status !== 'running');
  if (controlled.length === 0) return;
  const cancelled = controlled.filter((row) => row.status === 'cancelled').length;
  if (cancelled > 0) metrics().runControlOutcomes.inc({ outcome: 'cancelled' }, cancelled);
  wakeScheduler();
}
