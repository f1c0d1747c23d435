import { Badge, type BadgeTone } from '@/components/ui/badge';
import type { ReplayJobView } from '@/lib/replay-jobs/service';
import { dateTimeFormat } from '@/components/format';
import { CancelReplayJob } from '@/components/replay-jobs/replay-job-buttons';

// One bulk replay job: its state, a progress bar and what it did. Rendered on
// the server from the stored job, so a reload shows the same progress.

const statusTones: Record<ReplayJobView['status'], BadgeTone> = { running: 'accent', completed: 'success', cancelled: 'neutral' };
const statusLabels: Record<ReplayJobView['status'], string> = { running: 'Running', completed: 'Completed', cancelled: 'Cancelled' };

const plural = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** The selection in words: "search “x” · event push · from … to …", or the automation's trigger. */
export function selectionSummary(selection: Record<string, unknown>, automationName?: string | null): string {
  if (typeof selection.automation === 'string') {
    return `deliveries ${automationName ? `“${automationName}”` : 'the automation'}’s trigger ${Number(selection.trigger ?? 0) + 1} matches in Backtest`;
  }
  const parts = ['Accepted deliveries'];
  if (typeof selection.q === 'string') parts.push(`matching “${selection.q}”`);
  if (typeof selection.event === 'string') parts.push(`of event type ${selection.event}`);
  if (typeof selection.from === 'string') parts.push(`from ${dateTimeFormat.format(new Date(selection.from))}`);
  if (typeof selection.to === 'string') parts.push(`until ${dateTimeFormat.format(new Date(selection.to))}`);
  return parts.join(' ');
}

export function ReplayJobProgress({ job, factorySlug, manage, automationName }: { job: ReplayJobView; factorySlug: string; manage: boolean; automationName?: string | null }) {
  const percent = job.total === 0 ? 100 : Math.floor((job.done / job.total) * 100);
  return (
    <div className="flex flex-col gap-3 px-5 py-4" data-replay-job={job.id}>
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <Badge tone={statusTones[job.status]} dot>
            {statusLabels[job.status]}
          </Badge>
          <span className="font-medium text-fg">{job.webhookName ?? job.webhookUid}</span>
          <span className="font-mono text-xs text-fg-subtle">{job.id}</span>
        </div>
        {manage && job.status === 'running' ? <CancelReplayJob factorySlug={factorySlug} id={job.id} done={job.done} total={job.total} /> : null}
      </div>
      <div
        role="progressbar"
        aria-label={`Replay job ${job.id}`}
        aria-valuemin={0}
        aria-valuemax={job.total}
        aria-valuenow={job.done}
        aria-valuetext={`${job.done.toLocaleString('en-US')} of ${job.total.toLocaleString('en-US')} deliveries`}
        className="h-2 w-full overflow-hidden rounded-full bg-subtle ring-1 ring-line ring-inset"
      >
        <div className={job.status === 'cancelled' ? 'h-full bg-zinc-400' : 'h-full bg-accent-600'} style={{ width: `${percent}%` }} />
      </div>
      <p className="text-sm text-fg">
        {job.done.toLocaleString('en-US')} of {plural(job.total, 'delivery', 'deliveries')} ({percent}%) · {plural(job.runsStarted, 'run')} started
        {job.skipped > 0 ? ` · ${job.skipped.toLocaleString('en-US')} skipped (pruned or no longer Accepted)` : ''}
      </p>
      {job.waiting ? <p className="text-sm text-amber-800">{job.waiting}</p> : null}
      <p className="text-[13px] text-fg-muted">
        {selectionSummary(job.selection, automationName)}. Started by {job.createdBy} on{' '}
        <time dateTime={job.createdAt.toISOString()}>{dateTimeFormat.format(job.createdAt)}</time>
        {job.finishedAt ? (
          <>
            ; {job.status === 'cancelled' ? `cancelled${job.cancelledBy ? ` by ${job.cancelledBy}` : ''}` : 'finished'} on{' '}
            <time dateTime={job.finishedAt.toISOString()}>{dateTimeFormat.format(job.finishedAt)}</time>
          </>
        ) : null}
        .
      </p>
    </div>
  );
}
