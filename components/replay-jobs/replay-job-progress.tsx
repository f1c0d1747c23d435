'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { CancelReplayJob } from '@/components/replay-jobs/replay-job-buttons';
import { replayJobProgressAction } from '@/lib/domain/replay-jobs/actions';
import { reach } from '@/components/forms/reach';

// One bulk replay job: its state, a progress bar and what it did. The page
// renders it from the stored job (so a reload shows the same progress); while
// the job runs, it asks for the job's figures every second (one row read, not
// the whole page) and refreshes the page once the job has finished.

export type ReplayJobProgressView = {
  id: string;
  status: 'running' | 'completed' | 'cancelled';
  webhookName: string;
  total: number;
  done: number;
  runsStarted: number;
  skipped: number;
  waiting: string | null;
};

const statusTones: Record<ReplayJobProgressView['status'], BadgeTone> = { running: 'accent', completed: 'success', cancelled: 'neutral' };
const statusLabels: Record<ReplayJobProgressView['status'], string> = { running: 'Running', completed: 'Completed', cancelled: 'Cancelled' };
const POLL_MS = 1_000;

const plural = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

export function ReplayJobProgress({ job: initial, factorySlug, manage, children }: { job: ReplayJobProgressView; factorySlug: string; manage: boolean; children?: ReactNode }) {
  const router = useRouter();
  const [job, setJob] = useState(initial);
  // A new render of the page (after a refresh) brings newer figures.
  const [seen, setSeen] = useState(initial);
  if (initial !== seen) {
    setSeen(initial);
    setJob(initial);
  }
  const running = job.status === 'running';
  useEffect(() => {
    if (!running) return;
    let stopped = false;
    const timer = setInterval(() => {
      if (document.hidden) return;
      void reach(replayJobProgressAction)(factorySlug, { id: job.id }).then((result) => {
        if (stopped || !result.ok) return;
        setJob((current) => ({ ...current, ...result.data }));
        if (result.data.status !== 'running') router.refresh();
      });
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [running, factorySlug, job.id, router]);

  const percent = job.total === 0 ? 100 : Math.floor((job.done / job.total) * 100);
  return (
    <div className="flex flex-col gap-3 px-5 py-4" data-replay-job={job.id}>
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <Badge tone={statusTones[job.status]} dot>
            {statusLabels[job.status]}
          </Badge>
          <span className="font-medium text-fg">{job.webhookName}</span>
          <span className="font-mono text-xs text-fg-subtle">{job.id}</span>
        </div>
        {manage && running ? <CancelReplayJob factorySlug={factorySlug} id={job.id} done={job.done} total={job.total} /> : null}
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
        <div className={job.status === 'cancelled' ? 'h-full bg-zinc-400' : 'h-full bg-accent-600 transition-[width] duration-500'} style={{ width: `${percent}%` }} />
      </div>
      <p className="text-sm text-fg">
        {job.done.toLocaleString('en-US')} of {plural(job.total, 'delivery', 'deliveries')} ({percent}%) · {plural(job.runsStarted, 'run')} started
        {job.skipped > 0 ? ` · ${job.skipped.toLocaleString('en-US')} skipped (pruned or no longer Accepted)` : ''}
      </p>
      {job.waiting ? <p className="text-sm text-amber-800">{job.waiting}</p> : null}
      {children}
    </div>
  );
}
