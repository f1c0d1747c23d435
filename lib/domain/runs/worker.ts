import 'server-only';
import os from 'node:os';
import { randomBase62 } from '@/lib/platform/crypto/random';
import { sql } from '@/lib/platform/db/sql';
import type { ExecutorConfig } from '@/lib/platform/env';
import { CANCELLED_BEFORE_START } from '@/lib/domain/runs/cancel';
import { payloadAttachments, type RunEnvelope } from '@/lib/domain/runs/envelope';
import { DEFAULT_CANCEL_GRACE_MS, executeCommand } from '@/lib/domain/runs/executors/command';
import { executeHttp } from '@/lib/domain/runs/executors/http';
import type { ClaimedRun, ExecutionOutcome } from '@/lib/domain/runs/executors/types';
import { errorFields, log } from '@/lib/platform/log';
import { isDatabaseUnavailable } from '@/lib/platform/db/unavailable';
import { contextFrom, inSpan, SpanKind } from '@/lib/platform/tracing';
import { metrics } from '@/lib/platform/metrics';
import { workerPools as pools, type WorkerPool } from '@/lib/domain/runs/wake';
import { markGroupsDirty } from '@/lib/domain/run-control/dirty';
import { controlledRunsEnded, type EndedRun } from '@/lib/domain/run-control/ended';

const logger = log('runs');

// Workers move queued runs through running to succeeded, failed or cancelled.
//
// Claiming is one UPDATE over a `FOR UPDATE SKIP LOCKED` subquery: when
// several app instances (or `tripline worker` processes) share PostgreSQL,
// each queued run is handed to exactly one of them. The pick is fair across
// factories (see claimRun), so one factory's burst cannot starve another's. A claim holds a lease
// (the executor's time limit plus a minute). A worker that dies mid-run
// leaves its run `running` with an expired lease; the sweep marks it failed
// rather than starting it again, so a run never executes twice. With no
// executor configured nothing is claimed and runs stay queued, visible.
//
// Cancelling (docs/decisions/0102): whoever cancels a run sets its
// cancelRequestedAt, on any instance. A queued run with a request is never
// claimed; the canceller ends it at once (and the sweep ends any it did not).
// A pool checks the runs it executes for requests in one query every
// CANCEL_POLL_MS, so a run held on another instance stops within about a
// second; the executor stops it (SIGTERM, SIGKILL after the grace; an aborted
// request and a run.cancelled call) and the run ends cancelled, its output so
// far kept.

// Idle workers poll this often; runs queued by this process wake them at once.
const POLL_MS = 1_000;
// How often a pool looks for abandoned runs. Their leases last the executor's
// time limit plus a minute, so a sweep every 15 s adds little to that, where
// one before every claim was most of an idle server's queries.
const SWEEP_MS = 15_000;
// Ready runs per factory that one claim considers (see claimRun).
const HEAD = 16;
const LEASE_MARGIN_MS = 60_000;
// How often a pool checks the runs it executes for a cancel request: the bound
// on how long a run cancelled elsewhere keeps going before its executor stops it.
export const CANCEL_POLL_MS = 1_000;

export const workerId = () => `${os.hostname()}:${process.pid}:${randomBase62(6)}`;

type ClaimedRow = { id: string; automationId: string; automationName: string; prompt: string; envelope: RunEnvelope; attempt: number; payload: string | null; traceparent: string | null };

/**
 * Claims the next run, fairly across factories: the factories with queued
 * runs are found with a loose index scan (one index probe per factory, not a
 * pass over every queued run), and each offers its oldest HEAD ready runs.
 * A candidate's turn is the factory's running runs plus its place in that
 * factory's line; the lowest turn goes first, then the factory served least
 * recently (latest startedAt), then the oldest. So a factory with 200 queued
 * runs and one with 1 alternate instead of the second waiting behind the
 * first's 200; and concurrent claims, which cannot see each other's
 * uncommitted picks, still spread over factories (the second claim skips the
 * locked first candidate and finds another factory's turn 0 before this
 * factory's turn 1). Within a factory runs stay first in, first out.
 *
 * The run's attachment is built from the delivery's stored body here, so
 * event-payload.json is that body byte for byte; `attachments` is empty only
 * if the payload is gone (processOne then fails the run).
 */
export async function claimRun(worker: string, leaseMs: number): Promise<ClaimedRun | null> {
  const [row] = await sql<ClaimedRow>(
    `WITH RECURSIVE waiting AS (
       (SELECT "factoryId" FROM "Run" WHERE "status" = 'queued' ORDER BY "factoryId" LIMIT 1)
       UNION ALL
       SELECT (SELECT r."factoryId" FROM "Run" r WHERE r."status" = 'queued' AND r."factoryId" > w."factoryId" ORDER BY r."factoryId" LIMIT 1)
         FROM waiting w WHERE w."factoryId" IS NOT NULL
     ),
     factories AS MATERIALIZED (
       SELECT w."factoryId",
              (SELECT count(*) FROM "Run" x WHERE x."status" = 'running' AND x."factoryId" = w."factoryId") AS "running",
              (SELECT max(x."startedAt") FROM "Run" x WHERE x."factoryId" = w."factoryId") AS "served"
         FROM waiting w WHERE w."factoryId" IS NOT NULL
     ),
     candidates AS MATERIALIZED (
       SELECT c."id", c."createdAt", f."served",
              f."running" + row_number() OVER (PARTITION BY f."factoryId" ORDER BY c."createdAt", c."id") AS "turn"
         FROM factories f
         CROSS JOIN LATERAL (
           SELECT r."id", r."createdAt" FROM "Run" r
            WHERE r."status" = 'queued' AND r."factoryId" = f."factoryId" AND (r."lockedUntil" IS NULL OR r."lockedUntil" <= now()) AND r."cancelRequestedAt" IS NULL
            ORDER BY r."createdAt", r."id"
            LIMIT ${HEAD}
         ) c
     ),
     next AS (
       SELECT r."id" FROM "Run" r JOIN candidates c ON c."id" = r."id"
        WHERE r."id" = ANY (ARRAY(SELECT "id" FROM candidates)) -- by primary key, not a pass over the queue
          AND r."status" = 'queued' AND (r."lockedUntil" IS NULL OR r."lockedUntil" <= now()) AND r."cancelRequestedAt" IS NULL
        ORDER BY c."turn", c."served" NULLS FIRST, c."createdAt", c."id"
        LIMIT 1
        FOR UPDATE OF r SKIP LOCKED
     )
     UPDATE "Run" r
        SET "status" = 'running', "lockedBy" = $1, "lockedUntil" = now() + ($2::int * interval '1 millisecond'),
            "startedAt" = COALESCE(r."startedAt", now()), "attempts" = r."attempts" + 1
       FROM next, "Automation" a
      WHERE r."id" = next."id" AND a."id" = r."automationId"
     RETURNING r."id", r."automationId", a."name" AS "automationName", r."prompt", r."envelope", r."attempts" AS "attempt", r."traceparent",
               COALESCE(r."payload", (SELECT d."body" FROM "Delivery" d WHERE d."id" = r."deliveryId")) AS "payload"`,
    [worker, leaseMs],
  );
  if (!row) return null;
  const { payload, ...run } = row;
  return { ...run, attachments: payload === null ? [] : payloadAttachments(payload), worker };
}

const CANCELLED_BEFORE_RETRY = 'The run was cancelled before its next attempt';
const ABANDONED = 'The worker executing this run stopped before it finished. The run was not started again, so that it never executes twice.';
const ABANDONED_CANCELLED = 'The run was cancelled, and the worker executing it stopped before it could record how the run ended.';

/**
 * Records the outcome, only while this worker still holds the run. An attempt
 * to be retried whose run was cancelled meanwhile ends cancelled instead.
 */
export async function finishRun(worker: string, runId: string, outcome: ExecutionOutcome): Promise<void> {
  // A run under run control that ends frees its group's slot: the group is marked for its scheduler in the same statement.
  const ended =
    outcome.status === 'failed' && outcome.retryAfterMs !== undefined
      ? await sql<EndedRun>(
          `WITH ended AS (
             UPDATE "Run" SET "status" = (CASE WHEN "cancelRequestedAt" IS NULL THEN 'queued' ELSE 'cancelled' END)::"RunStatus",
                    "lockedBy" = NULL, "output" = $4,
                    "lockedUntil" = CASE WHEN "cancelRequestedAt" IS NULL THEN now() + ($3::int * interval '1 millisecond') END,
                    "finishedAt" = CASE WHEN "cancelRequestedAt" IS NULL THEN NULL ELSE now() END,
                    "error" = CASE WHEN "cancelRequestedAt" IS NULL THEN $5::text ELSE $5::text || '. ' || $6::text END
              WHERE "id" = $1 AND "lockedBy" = $2 AND "status" = 'running'
             RETURNING "automationId", "controlKey", "status"::text AS "status"
           ),
           cancelled AS (SELECT * FROM ended WHERE "status" = 'cancelled'),
           marked AS (${markGroupsDirty('cancelled')} RETURNING 1)
           SELECT "controlKey", "status" FROM ended`,
          [runId, worker, outcome.retryAfterMs, outcome.output, outcome.error, CANCELLED_BEFORE_RETRY],
        )
      : await sql<EndedRun>(
          `WITH ended AS (
             UPDATE "Run" SET "status" = $3::"RunStatus", "lockedBy" = NULL, "lockedUntil" = NULL, "finishedAt" = now(), "output" = $4, "error" = $5
              WHERE "id" = $1 AND "lockedBy" = $2 AND "status" = 'running'
             RETURNING "automationId", "controlKey", "status"::text AS "status"
           ),
           marked AS (${markGroupsDirty('ended')} RETURNING 1)
           SELECT "controlKey", "status" FROM ended`,
          [runId, worker, outcome.status, outcome.output, outcome.status === 'succeeded' ? null : outcome.error],
        );
  controlledRunsEnded(ended);
}

/**
 * finishRun, tried again while the database cannot be reached (a restart, a failover, a connection
 * reset), until the run's lease ends or the shutdown's grace is over: the outcome of minutes of an
 * agent's work is not dropped for a blip (the run would stay running until its lease expired, then
 * fail as abandoned, its output lost, holding its run-control group's slot all the while). Safe to
 * repeat: finishRun changes only a run this worker still holds.
 */
async function finishWithRetries(worker: string, runId: string, outcome: ExecutionOutcome, until: number, shutdown?: AbortSignal): Promise<void> {
  for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      return await finishRun(worker, runId, outcome);
    } catch (error) {
      if (!isDatabaseUnavailable(error) || shutdown?.aborted || Date.now() + delay >= until) throw error;
      logger.warn({ runId, retryInMs: delay, ...errorFields(error) }, "the run's outcome could not be recorded: the database is unavailable; trying again");
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
    }
  }
}

/**
 * Ends the runs no worker will: running ones whose worker vanished (lease
 * expired) fail instead of running again, or end cancelled when their cancel
 * was requested; queued ones whose cancel was requested end cancelled.
 */
export async function failAbandonedRuns(): Promise<number> {
  const rows = await sql<EndedRun>(
    `WITH ended AS (
       UPDATE "Run" SET "status" = (CASE WHEN "cancelRequestedAt" IS NULL THEN 'failed' ELSE 'cancelled' END)::"RunStatus",
              "finishedAt" = now(), "lockedBy" = NULL, "lockedUntil" = NULL,
              "error" = CASE WHEN "status" = 'queued' THEN $1::text WHEN "cancelRequestedAt" IS NULL THEN $2::text ELSE $3::text END
        WHERE ("status" = 'running' AND "lockedUntil" < now()) OR ("status" = 'queued' AND "cancelRequestedAt" IS NOT NULL)
       RETURNING "id", "automationId", "controlKey", "status"::text AS "status"
     ),
     marked AS (${markGroupsDirty('ended')} RETURNING 1)
     SELECT "controlKey", "status" FROM ended`,
    [CANCELLED_BEFORE_START, ABANDONED, ABANDONED_CANCELLED],
  );
  controlledRunsEnded(rows);
  return rows.length;
}

/**
 * Executes a claimed run in the executor's span (with traces on), which the
 * program or receiver can continue (TRACEPARENT, traceparent). `signal` stops
 * it (its reason says why); `shutdown` also reaches a command already
 * stopping, whose grace a shutdown does not wait out: an AbortSignal aborts
 * once, so a shutdown after a cancel would not reach it through `signal`.
 */
export function execute(run: ClaimedRun, executor: Exclude<ExecutorConfig, { kind: 'none' }>, signal?: AbortSignal, shutdown?: AbortSignal): Promise<ExecutionOutcome> {
  const attributes = { 'tripline.executor': executor.kind, 'tripline.run.id': run.id };
  return inSpan(`tripline.executor.${executor.kind}`, { kind: executor.kind === 'http' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, async (span) => {
    const outcome = await (executor.kind === 'command' ? executeCommand(run, executor, signal, shutdown) : executeHttp(run, executor, signal));
    span?.setAttribute('tripline.run.outcome', outcome.status);
    return outcome;
  });
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

/** The time limit, the command's grace after it (SIGTERM to SIGKILL), and a margin. */
export function leaseMs(executor: Exclude<ExecutorConfig, { kind: 'none' }>): number {
  const grace = executor.kind === 'command' ? (executor.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS) : 0;
  return executor.timeoutMs + grace + LEASE_MARGIN_MS;
}

/**
 * The runs one pool executes, checked for cancel requests together: one query
 * by primary key every CANCEL_POLL_MS while the pool holds any, none while it
 * is idle. A run whose cancel was requested (on any instance) has its signal
 * aborted with the reason 'cancel'.
 */
export function cancelWatch(worker: string, onError: (error: Error) => void = () => undefined) {
  const held = new Map<string, AbortController>();
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    try {
      const ids = [...held.keys()];
      const rows = await sql<{ id: string }>(`SELECT "id" FROM "Run" WHERE "id" = ANY($1::text[]) AND "lockedBy" = $2 AND "cancelRequestedAt" IS NOT NULL`, [ids, worker]);
      for (const { id } of rows) held.get(id)?.abort('cancel');
    } catch (error) {
      onError(error as Error);
    }
    timer = undefined;
    schedule();
  };
  const schedule = () => {
    if (timer || held.size === 0) return;
    timer = setTimeout(() => void check(), CANCEL_POLL_MS);
    timer.unref();
  };
  return {
    /** Watches a run this worker holds until release(); its signal aborts on a cancel request. */
    hold(runId: string): AbortSignal {
      const controller = new AbortController();
      held.set(runId, controller);
      schedule();
      return controller.signal;
    },
    release(runId: string): void {
      held.delete(runId);
    },
  };
}

export type CancelWatch = ReturnType<typeof cancelWatch>;

/**
 * Claims and executes one run; false when the queue had nothing ready. When
 * `stopping` is aborted between the claim and the start, the run goes back to
 * the queue; `shutdown` aborts a run in progress (the shutdown grace is over);
 * `watch` stops it when its cancel is requested.
 */
export async function processOne(
  worker: string,
  executor: Exclude<ExecutorConfig, { kind: 'none' }>,
  options: { stopping?: AbortSignal; shutdown?: AbortSignal; watch?: CancelWatch } = {},
): Promise<boolean> {
  const claimedAt = Date.now();
  const run = await claimRun(worker, leaseMs(executor));
  if (!run) return false;
  if (options.stopping?.aborted) {
    await releaseRun(worker, run.id);
    return true;
  }
  // The run's span continues its delivery's trace (with traces on).
  const attributes = { 'tripline.run.id': run.id, 'tripline.automation.id': run.automationId, 'tripline.run.attempt': run.attempt };
  const cancelled = options.watch?.hold(run.id);
  const signals = [options.shutdown, cancelled].filter((signal) => signal !== undefined);
  const stop = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  try {
    await inSpan('tripline.run', { parent: contextFrom(run.traceparent), attributes }, async (span) => {
      let outcome: ExecutionOutcome;
      const started = performance.now();
      try {
        // Deliveries with kept runs are not pruned, so this is a database edited by hand.
        outcome = run.attachments.length
          ? await execute(run, executor, stop, options.shutdown)
          : { status: 'failed', output: null, error: 'The delivery that started this run is no longer stored, so its payload cannot be attached' };
      } catch (error) {
        outcome = { status: 'failed', output: null, error: `The executor failed: ${(error as Error).message}` };
      }
      await finishWithRetries(worker, run.id, outcome, claimedAt + leaseMs(executor), options.shutdown);
      span?.setAttribute('tripline.run.outcome', outcome.status);
      recordOutcome(run, executor.kind, outcome, (performance.now() - started) / 1000);
    });
  } finally {
    options.watch?.release(run.id);
  }
  return true;
}

/**
 * `stop(deadline)` claims nothing more and waits for the runs in progress
 * until `deadline` (epoch ms); runs still going then are stopped and fail
 * with a message saying so. Without a deadline it waits for them.
 */
/** One log line and the metrics for each run attempt that ended. */
function recordOutcome(run: ClaimedRun, executor: 'command' | 'http', outcome: ExecutionOutcome, seconds: number): void {
  const result = outcome.status === 'failed' && outcome.retryAfterMs !== undefined ? 'retried' : outcome.status;
  const { runs, runDuration } = metrics();
  runs.inc({ outcome: result, executor });
  runDuration.observe({ executor }, seconds);
  const fields = { runId: run.id, automationId: run.automationId, attempt: run.attempt, executor, outcome: result, seconds: Math.round(seconds * 1000) / 1000 };
  if (outcome.status === 'succeeded') logger.info(fields, 'run succeeded');
  else if (outcome.status === 'cancelled') logger.info({ ...fields, error: outcome.error }, 'run cancelled');
  else logger.warn({ ...fields, error: outcome.error }, result === 'retried' ? 'run attempt failed; queued again' : 'run failed');
}

/**
 * Starts `slots` loops that execute runs until stopped. `drain` stops each
 * loop once the queue has nothing ready (the CLI's `worker --drain`).
 */
export function startWorkers(executor: ExecutorConfig, slots: number, options: { drain?: boolean; log?: (line: string) => void } = {}): WorkerPool & { done: Promise<void>; errors: () => number } {
  if (executor.kind === 'none' || slots === 0) return { stop: async () => undefined, wake: () => undefined, done: Promise.resolve(), errors: () => 0 };
  const worker = workerId();
  let stopped = false;
  const stopping = new AbortController();
  const shutdown = new AbortController();
  const watch = cancelWatch(worker, (error) => options.log?.(`run cancel check error: ${error.message}`));
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

  let sweptAt = 0;
  let errors = 0;
  const loop = async () => {
    while (!stopped) {
      let worked = false;
      try {
        if (Date.now() - sweptAt >= SWEEP_MS) {
          sweptAt = Date.now();
          await failAbandonedRuns();
        }
        worked = await processOne(worker, executor, { stopping: stopping.signal, shutdown: shutdown.signal, watch });
      } catch (error) {
        if (stopped) break;
        errors += 1;
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
    /** How many turns of its loops failed (a database error, an outcome that could not be recorded). */
    errors: () => errors,
    stop: async (deadline?: number) => {
      stopped = true;
      stopping.abort();
      wake();
      if (deadline === undefined) return done;
      const timer = setTimeout(() => shutdown.abort('shutdown'), Math.max(0, deadline - Date.now()));
      await done;
      clearTimeout(timer);
    },
  };
  pools.add(pool);
  void done.finally(() => pools.delete(pool));
  return pool;
}
