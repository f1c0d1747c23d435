import 'server-only';
import os from 'node:os';
import { randomBase62 } from '@/lib/crypto/random';
import { sql } from '@/lib/db/sql';
import type { ExecutorConfig } from '@/lib/env';
import { executeCommand } from '@/lib/runs/executors/command';
import { executeHttp } from '@/lib/runs/executors/http';
import type { ClaimedRun, ExecutionOutcome } from '@/lib/runs/executors/types';

// Workers move queued runs through running to succeeded or failed.
//
// Claiming is one UPDATE over a `FOR UPDATE SKIP LOCKED` subquery: when
// several app instances (or `tripline worker` processes) share PostgreSQL,
// each queued run is handed to exactly one of them. A claim holds a lease
// (the executor's time limit plus a minute). A worker that dies mid-run
// leaves its run `running` with an expired lease; the sweep marks it failed
// rather than starting it again, so a run never executes twice. With no
// executor configured nothing is claimed and runs stay queued, visible.

// Idle workers poll this often; runs queued by this process wake them at once.
const POLL_MS = 1_000;
const LEASE_MARGIN_MS = 60_000;

export const workerId = () => `${os.hostname()}:${process.pid}:${randomBase62(6)}`;

export async function claimRun(worker: string, leaseMs: number): Promise<ClaimedRun | null> {
  const [row] = await sql<Omit<ClaimedRun, 'worker'>>(
    `WITH next AS (
       SELECT "id" FROM "Run"
        WHERE "status" = 'queued' AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())
        ORDER BY "createdAt", "id"
        LIMIT 1
        FOR UPDATE SKIP LOCKED
     )
     UPDATE "Run" r
        SET "status" = 'running', "lockedBy" = $1, "lockedUntil" = now() + ($2::int * interval '1 millisecond'),
            "startedAt" = COALESCE(r."startedAt", now()), "attempts" = r."attempts" + 1
       FROM next, "Automation" a
      WHERE r."id" = next."id" AND a."id" = r."automationId"
     RETURNING r."id", r."automationId", a."name" AS "automationName", r."prompt", r."envelope", r."attachments", r."attempts" AS "attempt"`,
    [worker, leaseMs],
  );
  return row ? { ...row, worker } : null;
}

/** Records the outcome, only while this worker still holds the run. */
export async function finishRun(worker: string, runId: string, outcome: ExecutionOutcome): Promise<void> {
  if (outcome.status === 'failed' && outcome.retryAfterMs !== undefined) {
    await sql(
      `UPDATE "Run" SET "status" = 'queued', "lockedBy" = NULL, "lockedUntil" = now() + ($3::int * interval '1 millisecond'),
              "output" = $4, "error" = $5
        WHERE "id" = $1 AND "lockedBy" = $2 AND "status" = 'running'`,
      [runId, worker, outcome.retryAfterMs, outcome.output, outcome.error],
    );
    return;
  }
  await sql(
    `UPDATE "Run" SET "status" = $3::"RunStatus", "lockedBy" = NULL, "lockedUntil" = NULL, "finishedAt" = now(), "output" = $4, "error" = $5
      WHERE "id" = $1 AND "lockedBy" = $2 AND "status" = 'running'`,
    [runId, worker, outcome.status, outcome.output, outcome.status === 'failed' ? outcome.error : null],
  );
}

/** Runs whose worker vanished (lease expired while running) fail instead of running again. */
export async function failAbandonedRuns(): Promise<number> {
  const rows = await sql<{ id: string }>(
    `UPDATE "Run" SET "status" = 'failed', "finishedAt" = now(), "lockedBy" = NULL, "lockedUntil" = NULL,
            "error" = 'The worker executing this run stopped before it finished. The run was not started again, so that it never executes twice.'
      WHERE "status" = 'running' AND "lockedUntil" < now()
     RETURNING "id"`,
  );
  return rows.length;
}

export function execute(run: ClaimedRun, executor: Exclude<ExecutorConfig, { kind: 'none' }>, signal?: AbortSignal): Promise<ExecutionOutcome> {
  return executor.kind === 'command' ? executeCommand(run, executor, signal) : executeHttp(run, executor, signal);
}

/** Puts a claimed run that never started back in the queue, as if it had not been claimed. */
export async function releaseRun(worker: string, runId: string): Promise<void> {
  await sql(
    `UPDATE "Run" SET "status" = 'queued', "lockedBy" = NULL, "lockedUntil" = NULL, "attempts" = "attempts" - 1,
            "startedAt" = CASE WHEN "attempts" <= 1 THEN NULL ELSE "startedAt" END
      WHERE "id" = $1 AND "lockedBy" = $2 AND "status" = 'running'`,
    [runId, worker],
  );
}

export function leaseMs(executor: Exclude<ExecutorConfig, { kind: 'none' }>): number {
  return executor.timeoutMs + LEASE_MARGIN_MS;
}

/**
 * Claims and executes one run; false when the queue had nothing ready. When
 * `stopping` is aborted between the claim and the start, the run goes back to
 * the queue; `cancel` aborts a run in progress (the shutdown grace is over).
 */
export async function processOne(
  worker: string,
  executor: Exclude<ExecutorConfig, { kind: 'none' }>,
  options: { stopping?: AbortSignal; cancel?: AbortSignal } = {},
): Promise<boolean> {
  const run = await claimRun(worker, leaseMs(executor));
  if (!run) return false;
  if (options.stopping?.aborted) {
    await releaseRun(worker, run.id);
    return true;
  }
  let outcome: ExecutionOutcome;
  try {
    outcome = await execute(run, executor, options.cancel);
  } catch (error) {
    outcome = { status: 'failed', output: null, error: `The executor failed: ${(error as Error).message}` };
  }
  await finishRun(worker, run.id, outcome);
  return true;
}

/**
 * `stop(deadline)` claims nothing more and waits for the runs in progress
 * until `deadline` (epoch ms); runs still going then are stopped and fail
 * with a message saying so. Without a deadline it waits for them.
 */
export type WorkerPool = { stop: (deadline?: number) => Promise<void>; wake: () => void };

// This process's worker pools, on globalThis so the ingress bundle reaches
// the pools the server started: a delivery that queues runs wakes them at
// once instead of waiting for the next poll. Other instances poll.
const poolsKey = Symbol.for('tripline.runWorkerPools');
const pools: Set<WorkerPool> = ((globalThis as Record<symbol, unknown>)[poolsKey] ??= new Set()) as Set<WorkerPool>;

/** Tells this process's idle workers that runs were queued. */
export function wakeWorkers(): void {
  for (const pool of pools) pool.wake();
}

/**
 * Starts `slots` loops that execute runs until stopped. `drain` stops each
 * loop once the queue has nothing ready (the CLI's `worker --drain`).
 */
export function startWorkers(executor: ExecutorConfig, slots: number, options: { drain?: boolean; log?: (line: string) => void } = {}): WorkerPool & { done: Promise<void> } {
  if (executor.kind === 'none' || slots === 0) return { stop: async () => undefined, wake: () => undefined, done: Promise.resolve() };
  const worker = workerId();
  let stopped = false;
  const stopping = new AbortController();
  const cancel = new AbortController();
  const sleepers = new Set<() => void>();
  const wake = () => {
    for (const resume of sleepers) resume();
    sleepers.clear();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        sleepers.delete(done);
        resolve();
      }, ms);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      sleepers.add(done);
    });

  const loop = async () => {
    while (!stopped) {
      let worked = false;
      try {
        await failAbandonedRuns();
        worked = await processOne(worker, executor, { stopping: stopping.signal, cancel: cancel.signal });
      } catch (error) {
        if (stopped) break;
        options.log?.(`run worker error: ${(error as Error).message}`);
      }
      if (!worked) {
        if (options.drain) break;
        await sleep(POLL_MS);
      }
    }
  };
  const loops = Array.from({ length: slots }, loop);
  const done = Promise.all(loops).then(() => undefined);
  const pool = {
    done,
    wake,
    stop: async (deadline?: number) => {
      stopped = true;
      stopping.abort();
      wake();
      if (deadline === undefined) return done;
      const timer = setTimeout(() => cancel.abort(), Math.max(0, deadline - Date.now()));
      await done;
      clearTimeout(timer);
    },
  };
  pools.add(pool);
  void done.finally(() => pools.delete(pool));
  return pool;
}
