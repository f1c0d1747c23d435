import 'server-only';
import { randomBytes } from 'node:crypto';
import { prisma, type Db } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { replayDeliveryInTx } from '@/lib/domain/runs/replay';
import { inSpan } from '@/lib/platform/tracing';

// The replay jobs' worker (docs/replay.md), started by every instance from
// lib/server/startup.ts.
//
// One instance works a job at a time: it claims the job's lease (a token and
// an expiry on the job's row, taken by one UPDATE ... WHERE the lease is free
// or expired, so two instances cannot both take it) and renews it with each
// item. An instance that dies leaves a lease that expires after
// LEASE_SECONDS; any instance (the same one restarted, or another) then
// takes the job up where it stopped.
//
// Exactly once: each item is replayed in one transaction that locks the
// job's row, checks the job is still running under this lease, replays the
// delivery at position `done` (inserting its runs) and moves `done` past it.
// A SIGKILL before the commit leaves nothing (the next holder replays that
// item); after it, everything. Nothing is ever half done.
//
// Pace: at most TRIPLINE_REPLAY_RATE items a second per instance, so a job
// of 5,000 never crowds out the ingress. Run queue: when the factory's queue
// is full (TRIPLINE_RUN_QUEUE_LIMIT), the item is not replayed, the job says
// it is waiting, and its turn ends: it is handed back for at least
// QUEUE_FULL_WAIT_MS and the instance goes on with another job. The job pauses
// until runs finish, and never fails or floods the queue.
//
// Turns: a job is worked for TURN_MS at most, then handed back. The next claim
// takes the job that has waited longest for a turn (one never worked first),
// so every factory's job gets its turn, whatever one factory starts or fills.

export const LEASE_SECONDS = 15;
export const QUEUE_FULL_WAIT_MS = 2_000;
/** A worker turn hands the job back after this long, so other factories' jobs get their turn. */
const TURN_MS = 30_000;

type Claimed = { id: string; factoryId: string; webhookUid: string; createdBy: string; leaseToken: string };

/**
 * Claims the running job whose lease is free or expired that has waited longest for a turn (a
 * job never worked, then the one handed back first; `leaseUntil` is when its last turn ended);
 * null when there is none.
 */
export async function claimReplayJob(db: Db = prisma): Promise<Claimed | null> {
  const token = randomBytes(12).toString('base64url');
  const rows = await db.$queryRawUnsafe<Claimed[]>(
    `UPDATE "ReplayJob" SET "leaseToken" = $1, "leaseUntil" = now() + make_interval(secs => $2)
      WHERE "id" = (SELECT "id" FROM "ReplayJob"
                     WHERE "status" = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
                     ORDER BY "leaseUntil" NULLS FIRST, "createdAt", "id" LIMIT 1 FOR UPDATE SKIP LOCKED)
        AND "status" = 'running' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
      RETURNING "id", "factoryId", "webhookUid", "createdBy", "leaseToken"`,
    token,
    LEASE_SECONDS,
  );
  return rows[0] ?? null;
}

export type StepResult = 'replayed' | 'skipped' | 'waiting' | 'finished' | 'lost';

/**
 * Replays the next item of a claimed job in one transaction. 'lost' when
 * the job is no longer running under this lease (cancelled, or the lease
 * expired and another instance holds it); 'finished' when the last item is
 * done (the job is then completed).
 */
export async function replayNextItem(job: Claimed, db: Db = prisma): Promise<StepResult> {
  return db.$transaction(
    async (tx) => {
      // The job's row lock first: a cancel waits for this item, and this item sees a committed cancel.
      const [state] = await tx.$queryRawUnsafe<{ done: number; total: number }[]>(
        `UPDATE "ReplayJob" SET "leaseUntil" = now() + make_interval(secs => $3)
          WHERE "id" = $1 AND "leaseToken" = $2 AND "status" = 'running'
          RETURNING "done", "total"`,
        job.id,
        job.leaseToken,
        LEASE_SECONDS,
      );
      if (!state) return 'lost';
      if (state.done >= state.total) {
        await tx.replayJob.update({ where: { id: job.id }, data: { status: 'completed', finishedAt: new Date(), waiting: null, leaseToken: null, leaseUntil: null } });
        return 'finished';
      }
      const item = await tx.replayJobItem.findUnique({ where: { jobId_position: { jobId: job.id, position: state.done } }, select: { deliveryId: true } });
      const outcome = item ? await replayDeliveryInTx(tx, job.factoryId, job.webhookUid, item.deliveryId, { email: `${job.createdBy} (bulk replay ${job.id})` }) : { kind: 'not_found' as const };
      if (outcome.kind === 'queue_full') {
        await tx.replayJob.update({
          where: { id: job.id },
          data: { waiting: `Run queue full (${outcome.limit.toLocaleString('en-US')} queued runs): waiting for runs to finish` },
        });
        return 'waiting';
      }
      const runs = outcome.kind === 'replayed' ? outcome.result.started.length : 0;
      const skipped = outcome.kind !== 'replayed';
      await tx.replayJobItem.update({
        where: { jobId_position: { jobId: job.id, position: state.done } },
        data: { doneAt: new Date(), outcome: skipped ? 'skipped' : 'replayed', runs },
      });
      const finished = state.done + 1 >= state.total;
      await tx.replayJob.update({
        where: { id: job.id },
        data: {
          done: { increment: 1 },
          runsStarted: { increment: runs },
          skipped: { increment: skipped ? 1 : 0 },
          waiting: null,
          ...(finished ? { status: 'completed', finishedAt: new Date(), leaseToken: null, leaseUntil: null } : {}),
        },
      });
      return finished ? 'finished' : skipped ? 'skipped' : 'replayed';
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
}

/**
 * Gives a job's lease back (the end of a turn), if this holder still has it: claimable again
 * `holdMs` from now, and behind every job that waited longer for a turn.
 */
async function releaseJob(job: Claimed, db: Db, holdMs = 0): Promise<void> {
  // The database's clock, as the claim compares with: an instance whose clock is behind would
  // otherwise hand a waiting job back into the past and claim it again at once.
  await db.$executeRawUnsafe(
    `UPDATE "ReplayJob" SET "leaseToken" = NULL, "leaseUntil" = now() + make_interval(secs => $3)
      WHERE "id" = $1 AND "leaseToken" = $2`,
    job.id,
    job.leaseToken,
    holdMs / 1000,
  );
}

/** Waits `ms`, or until `signal` aborts; its abort listener goes when it ends (the signal lives as long as the process). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * One turn of the worker: claims a job and replays its items at the pace
 * until it is finished, cancelled, waiting for its run queue, the turn is
 * over or `signal` aborts (shutdown). A job that waits is handed back and the
 * turn goes on with the next job, if any. Returns how many items it replayed
 * or skipped.
 */
export async function workReplayJobs(options: { db?: Db; rate?: number; signal?: AbortSignal; turnMs?: number } = {}): Promise<number> {
  const db = options.db ?? prisma;
  const rate = options.rate ?? env().replayRate;
  const until = Date.now() + (options.turnMs ?? TURN_MS);
  let total = 0;
  while (!options.signal?.aborted && Date.now() < until) {
    const job = await claimReplayJob(db);
    if (!job) break;
    // With traces on: a span per job's turn, a child per item; the runs an item starts continue the item's span.
    const turn = await inSpan('tripline.replay_job', { attributes: { 'tripline.replay_job.id': job.id, 'tripline.webhook.uid': job.webhookUid } }, async (span) => {
      const worked = await workTurn(job, db, rate, until, options.signal);
      span?.setAttribute('tripline.replay_job.items', worked.count);
      return worked;
    });
    total += turn.count;
    if (!turn.waiting) break;
  }
  return total;
}

async function workTurn(job: Claimed, db: Db, rate: number, until: number, signal?: AbortSignal): Promise<{ count: number; waiting: boolean }> {
  const interval = 1000 / rate;
  let count = 0;
  try {
    while (!signal?.aborted && Date.now() < until) {
      const started = Date.now();
      const step = await inSpan('tripline.replay_job.item', {}, async (span) => {
        const result = await replayNextItem(job, db);
        span?.setAttribute('tripline.replay_job.step', result);
        return result;
      });
      if (step === 'lost' || step === 'finished') {
        if (step === 'finished') count++;
        return { count, waiting: false };
      }
      if (step === 'waiting') {
        // Its factory's run queue is full: handed back for a while, and the instance works another job meanwhile.
        await releaseJob(job, db, QUEUE_FULL_WAIT_MS);
        return { count, waiting: true };
      }
      count++;
      await sleep(Math.max(0, interval - (Date.now() - started)), signal);
    }
    await releaseJob(job, db);
    return { count, waiting: false };
  } catch (error) {
    // The lease expires by itself; giving it back lets the next turn retry at once.
    await releaseJob(job, db).catch(() => undefined);
    throw error;
  }
}
