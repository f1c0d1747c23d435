import { dateTimeFormat } from '@/components/format';
import type { ReplayJobView } from '@/lib/domain/replay-jobs/service';

// What a job replays and who started (and cancelled) it when: rendered on the
// server, in the server's time zone like the rest of the dashboard.

/** The selection in words: "Accepted deliveries matching “x” of event type push from …", or the automation's trigger. */
export function selectionSummary(selection: Record<string, unknown>, automationName?: string | null): string {
  if (typeof selection.automation === 'string') {
    return `The deliveries ${automationName ? `“${automationName}”` : 'the automation'}’s trigger ${Number(selection.trigger ?? 0) + 1} matches in Backtest`;
  }
  const parts = ['Accepted deliveries'];
  if (typeof selection.q === 'string') parts.push(`matching “${selection.q}”`);
  if (typeof selection.event === 'string') parts.push(`of event type ${selection.event}`);
  if (typeof selection.from === 'string') parts.push(`from ${dateTimeFormat.format(new Date(selection.from))}`);
  if (typeof selection.to === 'string') parts.push(`until ${dateTimeFormat.format(new Date(selection.to))}`);
  return parts.join(' ');
}

export function ReplayJobAudit({ job, automationName }: { job: ReplayJobView; automationName?: string | null }) {
  return (
    <p className="text-[13px] text-fg-muted">
      {selectionSummary(job.selection, automationName)}. Started by {job.createdBy} on <time dateTime={job.createdAt.toISOString()}>{dateTimeFormat.format(job.createdAt)}</time>
      {job.finishedAt ? (
        <>
          ; {job.status === 'cancelled' ? `cancelled${job.cancelledBy ? ` by ${job.cancelledBy}` : ''}` : 'finished'} on{' '}
          <time dateTime={job.finishedAt.toISOString()}>{dateTimeFormat.format(job.finishedAt)}</time>
        </>
      ) : null}
      .
    </p>
  );
}
