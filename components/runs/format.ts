import type { RunSummary } from '@/lib/domain/runs/service';

// Paths and times of runs, shared by the runs tables and the run page.

export const runPath = (factorySlug: string, run: { id: string; automation: { id: string } }) =>
  `/f/${factorySlug}/automations/${run.automation.id}/runs/${run.id}`;

export const deliveryPath = (factorySlug: string, delivery: Pick<NonNullable<RunSummary['delivery']>, 'id' | 'webhookUid'>) =>
  `/f/${factorySlug}/automations/webhooks/${delivery.webhookUid}/deliveries/${encodeURIComponent(delivery.id)}`;

/** "0.4 s", "12 s", "3 min 5 s"; null until the run has both ends. */
export function runDuration(run: Pick<RunSummary, 'startedAt' | 'finishedAt'>): string | null {
  if (!run.startedAt || !run.finishedAt) return null;
  const ms = Math.max(0, run.finishedAt.getTime() - run.startedAt.getTime());
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
