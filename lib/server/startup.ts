import 'server-only';
import { getDatabase, setDatabase } from '@/lib/platform/db';
import { prepareDatabase } from '@/lib/platform/db/prepare';
import { checkpointEmbedded, vacuumEmbedded } from '@/lib/platform/db/vacuum';
import { deleteExpiredSessions } from '@/lib/domain/auth/sessions';
import { copyPendingBodies, EMBEDDED_BATCH, SERVER_BATCH } from '@/lib/domain/deliveries/body-json';
import { backfillEventTypes, EMBEDDED_TYPE_BATCH, SERVER_TYPE_BATCH } from '@/lib/domain/deliveries/event-type-backfill';
import { pruneDeliveries } from '@/lib/domain/deliveries/retention';
import { mergeSearchPendingList } from '@/lib/domain/deliveries/search-index';
import { closeAllStreams } from '@/lib/domain/deliveries/stream';
import { syncAllRepositories } from '@/lib/domain/definitions/repository-schedule';
import { protectDestinationUrls } from '@/lib/domain/notifications/service';
import { moveRepositoryCredentials } from '@/lib/domain/definitions/repository-credentials';
import { env } from '@/lib/platform/env';
import { servedByEntry } from '@/lib/platform/entry/client-address';
import { errorFields, log } from '@/lib/platform/log';
import { metrics } from '@/lib/platform/metrics';
import { pruneRuns } from '@/lib/domain/runs/retention';
import { checkFailedRuns, checkWebhookHealth } from '@/lib/domain/health/monitor';
import { sendDueNotifications } from '@/lib/domain/notifications/sender';
import { startWorkers } from '@/lib/domain/runs/worker';
import { wakeWorkers } from '@/lib/domain/runs/wake';
import { startScheduler } from '@/lib/domain/run-control/scheduler';
import { replayWakers } from '@/lib/domain/replay-jobs/wake';
import { workReplayJobs } from '@/lib/domain/replay-jobs/worker';
import { releaseConnectionLeases, runDuePasses } from '@/lib/domain/connections/recover';
import { connectionWakers } from '@/lib/domain/connections/wake';
import { onShutdown, setPhase, shutdownStage } from '@/lib/server/lifecycle';
import { startTracing, stopTracing } from '@/lib/platform/tracing';

// Server start: every instance applies pending migrations (under PostgreSQL's
// advisory lock, taken on a connection of its own and released before that
// connection closes, so instances starting together all come up and one
// applies each migration: lib/platform/db/migrate.ts), checks its keys, then starts periodic housekeeping and the run
// workers, and registers how each stops. The server entry (server.ts) owns
// the signals and runs the shutdown sequence (lib/server/lifecycle.ts).

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const logger = log('startup');

/** A turn of `job`: starts it unless a turn is still going (then this one is skipped). */
function turns(name: string, job: () => Promise<unknown>): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    job()
      .catch((error: unknown) => log('housekeeping').error({ job: name, ...errorFields(error) }, `${name} failed`))
      .finally(() => (running = false));
  };
}

/** Takes a turn every `intervalMs`. */
function repeat(intervalMs: number, turn: () => void): NodeJS.Timeout {
  const timer = setInterval(turn, intervalMs);
  timer.unref();
  return timer;
}

/** Runs `job` every `intervalMs`; a run still going when the next is due skips that turn. */
function every(intervalMs: number, name: string, job: () => Promise<unknown>): NodeJS.Timeout {
  return repeat(intervalMs, turns(name, job));
}

// Backtest's jsonb copies of new bodies (lib/domain/deliveries/body-json.ts): a
// few seconds behind the ingress.
const BODY_COPY_INTERVAL = 5_000;
async function copyBodies(embedded: boolean): Promise<number> {
  // PGlite's one connection is the ingress's too: small statements. PostgreSQL's instances take turns.
  const copied = await copyPendingBodies(undefined, embedded ? { batch: EMBEDDED_BATCH } : { batch: SERVER_BATCH, transaction: true });
  metrics().backtestCopies.inc(copied);
  return copied;
}

// How often the embedded database's WAL since its last checkpoint is looked at
// (lib/platform/db/vacuum.ts): at the ingress's full rate, about 200 MB of WAL.
const EMBEDDED_CHECKPOINT_INTERVAL = 15_000;

// The search index's pending list (lib/domain/deliveries/search-index.ts): merged
// before the ingress fills it.
const SEARCH_MERGE_INTERVAL = 2_000;

// How often an instance looks for a replay job to work when it has none: a job
// started on this instance wakes it at once (lib/domain/replay-jobs/wake.ts),
// so the poll finds those started on another instance and those whose lease
// expired. At 1 s it was the largest part of an idle server's queries.
const REPLAY_POLL_INTERVAL = 5_000;

// How often an instance looks for connections whose recovery pass is due
// (each every TRIPLINE_CONNECTION_CHECK_INTERVAL, 15 minutes by default);
// "Check now" and a new connection wake this instance's loop at once.
const CONNECTION_POLL_INTERVAL = 30_000;

export async function startServer(): Promise<void> {
  const line = (text: string) => logger.info(text);
  let database;
  try {
    env();
    // OpenTelemetry, when OTEL_* asks for it (docs/tracing.md): before anything makes a span.
    if (await startTracing()) onShutdown({ name: 'tracing', stage: shutdownStage.database, run: () => stopTracing() });
    database = getDatabase();
    const applied = await prepareDatabase(database, line);
    if (applied.length > 0 && database.adapter.pglite) {
      // Applying migrations grows PGlite's WebAssembly heap (by about 365 MB
      // for the whole history on a new folder), and that heap never shrinks.
      // The database is opened again on a new thread, which starts with a
      // small heap: a second or two at a first start or an upgrade, for that
      // memory back for the server's lifetime (docs/benchmarks.md, Memory).
      await database.close();
      setDatabase(undefined);
      database = getDatabase();
      await database.adapter.pglite?.waitReady;
    }
    const moved = await moveRepositoryCredentials(database.prisma);
    if (moved > 0) line(`moved the credentials of ${moved} repository URL${moved === 1 ? '' : 's'} into encrypted storage`);
    const encrypted = await protectDestinationUrls(database.prisma);
    if (encrypted > 0) line(`encrypted the URLs of ${encrypted} Slack notification destination${encrypted === 1 ? '' : 's'}`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    setPhase('failed', reason);
    logger.fatal(`cannot start: ${reason}`);
    process.exit(1);
  }
  line(`ingress URLs use ${env().baseUrl}`);
  if (!servedByEntry()) {
    logger.warn('not started through server.ts (npm start): client addresses are unknown, so every client shares one failed-authentication budget, and shutdown does not drain');
  }
  if (env().testClock) {
    logger.warn('TRIPLINE_TEST_CLOCK=true: any request may set the time its signature is checked at (X-Tripline-Test-Now), which undoes replay protection; for test servers only, never in production');
  }

  // What housekeeping does differently on the embedded database (one connection, no autovacuum).
  const pglite = database.adapter.pglite;
  let analyzedAt = 0;
  const timers = [
    every(HOUR, 'session cleanup', () => deleteExpiredSessions()),
    every(HOUR, 'retention', async () => {
      await pruneDeliveries();
      await pruneRuns(env().runRetentionDays);
      // PGlite has no autovacuum: without this, the space of pruned rows is never reused.
      if (!pglite) return;
      const analyze = Date.now() - analyzedAt >= DAY;
      const ms = await vacuumEmbedded(pglite, { analyze });
      if (analyze) analyzedAt = Date.now();
      log('housekeeping').info({ job: 'vacuum', analyze, ms: Math.round(ms) }, 'embedded database vacuumed');
    }),
    every(BODY_COPY_INTERVAL, 'backtest copies', () => copyBodies(pglite !== undefined)),
    // Entries stored before event types: a few seconds' work per turn until none is left (one read of a setting after).
    every(BODY_COPY_INTERVAL, 'event type backfill', () =>
      backfillEventTypes(undefined, pglite !== undefined ? { batch: EMBEDDED_TYPE_BATCH } : { batch: SERVER_TYPE_BATCH, transaction: true }),
    ),
  ];
  // PostgreSQL: the search index's new entries are merged here, not by the insert that fills its list.
  if (!pglite) timers.push(every(SEARCH_MERGE_INTERVAL, 'search index merge', () => mergeSearchPendingList()));
  // The embedded database: a checkpoint once 64 MB of WAL were written since the last (PGlite runs no checkpointer).
  if (pglite) {
    timers.push(
      every(EMBEDDED_CHECKPOINT_INTERVAL, 'embedded checkpoint', async () => {
        const done = await checkpointEmbedded(pglite);
        if (done.ms !== null) log('housekeeping').debug({ job: 'checkpoint', walBytes: done.walBytes, ms: Math.round(done.ms) }, 'embedded database checkpointed');
      }),
    );
  }
  // Health (rollups, state changes) and the notifications they queue: three jobs, each failing on its own, so a
  // health check that keeps failing (a catch-up chunk past its time limit) holds up neither failed-run notices nor sending.
  timers.push(
    every(env().healthInterval * 1000, 'health and notifications', async () => {
      const parts = { 'webhook health': checkWebhookHealth, 'failed runs': checkFailedRuns, 'notification sending': sendDueNotifications };
      for (const [part, job] of Object.entries(parts)) {
        await job().catch((error: unknown) => log('housekeeping').error({ job: part, ...errorFields(error) }, `${part} failed`));
      }
    }),
  );
  // Bulk replay jobs (lib/domain/replay-jobs/worker.ts): each instance looks for a job with a free lease every 5 s and
  // works it at TRIPLINE_REPLAY_RATE; shutdown aborts the turn, which gives the lease back for the next instance.
  const replayShutdown = new AbortController();
  const replayTurn = turns('replay jobs', () => workReplayJobs({ signal: replayShutdown.signal }));
  timers.push(repeat(REPLAY_POLL_INTERVAL, replayTurn));
  replayWakers.add(replayTurn);
  // Connections' recovery passes (lib/domain/connections/recover.ts): every connection at start, then those due;
  // a lease on each connection's row keeps a pass to one instance at a time.
  let connectionsAtStart = true;
  const connectionTurn = turns('connection checks', async () => {
    const all = connectionsAtStart;
    connectionsAtStart = false;
    // On the embedded database no other process can hold a lease: a pass a crash cut part-way goes on now.
    if (all && pglite) await releaseConnectionLeases();
    await runDuePasses({ all });
  });
  timers.push(repeat(CONNECTION_POLL_INTERVAL, connectionTurn));
  connectionWakers.add(connectionTurn);
  connectionTurn();
  // Repository-backed factories apply new commits of their production branch.
  // Every instance checks; the factory row lock makes one apply each commit.
  const syncInterval = env().repositorySyncInterval;
  if (syncInterval > 0) timers.push(every(syncInterval * 1000, 'repository sync', () => syncAllRepositories(line)));

  // Run control's scheduler (lib/domain/run-control/scheduler.ts) on every instance, executor or not: it decides which
  // pending runs are queued, and the instances share the work through the groups' row locks.
  const scheduler = startScheduler({ onStarted: wakeWorkers, log: (text) => log('runs').error(text) });
  onShutdown({ name: 'run control scheduler', stage: shutdownStage.work, run: () => scheduler.stop() });

  const { executor, runWorkers } = env();
  if (executor.kind === 'none') line('no run executor is configured: runs stay queued (see TRIPLINE_RUN_COMMAND, TRIPLINE_RUN_HTTP_URL)');
  else if (runWorkers === 0) line(`runs are executed elsewhere (TRIPLINE_RUN_WORKERS=0)`);
  else {
    const pool = startWorkers(executor, runWorkers, { log: (text) => log('runs').error(text) });
    line(`${runWorkers} run worker${runWorkers === 1 ? '' : 's'} started (${executor.kind} executor)`);
    // Running runs get until the shutdown deadline; claimed ones not yet started go back to the queue.
    onShutdown({ name: 'run workers', stage: shutdownStage.work, run: (deadline) => pool.stop(deadline) });
  }
  onShutdown({
    name: 'housekeeping',
    stage: shutdownStage.work,
    run: async () => {
      replayWakers.delete(replayTurn);
      connectionWakers.delete(connectionTurn);
      replayShutdown.abort();
      for (const timer of timers) clearInterval(timer);
    },
  });
  // Streams of the log end at once when draining starts, so they never hold the drain; their clients reconnect.
  onShutdown({ name: 'log streams', stage: shutdownStage.work, run: async () => closeAllStreams() });
  // Close the database last, so the embedded database's files are consistent on disk.
  onShutdown({ name: 'database', stage: shutdownStage.database, run: () => database.close() });
  setPhase('ready');

  if (!servedByEntry()) {
    // Without the entry nobody drains; at least close the database cleanly.
    const close = () => void database.close().finally(() => process.exit(0));
    process.once('SIGTERM', close);
    process.once('SIGINT', close);
  }
}
