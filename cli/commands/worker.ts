import { env } from '@/lib/platform/env';
import { startWorkers } from '@/lib/domain/runs/worker';
import { wakeWorkers } from '@/lib/domain/runs/wake';
import { schedulePass, startScheduler, PASS_GROUPS } from '@/lib/domain/run-control/scheduler';
import { startTracing, stopTracing } from '@/lib/platform/tracing';
import { parseEntryConfig } from '@/lib/platform/entry/entry-config';
import { CLI, parseOptions, UsageError } from '../args';
import { withWorkerDatabase } from '../database';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} worker [--slots <n>] [--drain]

Executes queued automation runs with the executor configured in the
environment (TRIPLINE_RUN_COMMAND or TRIPLINE_RUN_HTTP_URL), alongside or
instead of the app servers' own workers (TRIPLINE_RUN_WORKERS). Any number of
workers may share one PostgreSQL database: each run executes once.

A worker needs DATABASE_URL (and the executor's settings), not the server's
keys: run it under its own OS user or on its own host to keep agent runs
away from the server's files. It does not migrate the database: start a
server or run \`migrate deploy\` first.

It also runs run control's scheduler, as every server does, so waiting,
debounced and throttled runs start with no server running.

  --slots <n>   runs executed at once (default: TRIPLINE_RUN_WORKERS, or 2)
  --drain       exit once no run is ready, instead of waiting for more`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values } = parseOptions(args, { slots: { type: 'string' }, drain: { type: 'boolean' } });
    const { executor, runWorkers } = env();
    if (executor.kind === 'none') throw new UsageError('No executor is configured: set TRIPLINE_RUN_COMMAND or TRIPLINE_RUN_HTTP_URL');
    const slots = values.slots === undefined ? runWorkers || 2 : Number(values.slots);
    if (!Number.isInteger(slots) || slots < 1 || slots > 64) throw new UsageError('--slots must be a whole number from 1 to 64');
    return withWorkerDatabase(async () => {
      // OpenTelemetry, when OTEL_* asks for it (docs/tracing.md): each run's span continues its delivery's trace.
      await startTracing('tripline-worker');
      const log = (line: string) => console.error(`tripline: ${line}`);
      if (values.drain) return drain(executor, slots, log);
      // Run control's scheduler (docs/automations.md, Run control), as on every server: without it, a deployment whose
      // servers are down, or that runs none, would never start a waiting, debouncing or throttled run.
      const scheduler = startScheduler({ onStarted: wakeWorkers, log, trim: false });
      const pool = startWorkers(executor, slots, { log });
      onStopSignals((deadline) => {
        void scheduler.stop();
        void pool.stop(deadline);
      });
      await Promise.all([pool.done, scheduler.done]);
      await stopTracing();
      return 0;
    });
  });
}

/** Scheduler passes until none finds a full batch or a group with more pending runs than it reads; returns how many runs they started. */
async function decideAll(): Promise<number> {
  let started = 0;
  for (;;) {
    const pass = await schedulePass(() => new Date());
    started += pass.started;
    if ((pass.groups < PASS_GROUPS || pass.deferred === pass.groups) && pass.truncated === 0) return started;
  }
}

/**
 * --drain: executes every run that is ready, and those run control lets start
 * as runs end (a group's next waiting run), then exits. A debounce or
 * throttle period still running is not waited for.
 */
async function drain(executor: Parameters<typeof startWorkers>[0], slots: number, log: (line: string) => void): Promise<number> {
  let stopping = false;
  let current: ReturnType<typeof startWorkers> | undefined;
  onStopSignals((deadline) => {
    stopping = true;
    void current?.stop(deadline);
  });
  let errors = 0;
  await decideAll();
  do {
    if (stopping) break;
    current = startWorkers(executor, slots, { drain: true, log });
    await current.done;
    errors += current.errors();
    // The runs that ended marked their groups: the next of each may start now.
  } while (!stopping && (await decideAll()) > 0);
  await stopTracing();
  // A failed turn ends a drain's loop as an empty queue would: say so in the exit code, for cron and CI.
  if (errors > 0) log(`${errors} worker turn${errors === 1 ? '' : 's'} failed (above): runs may still be queued or running`);
  return errors > 0 || stopping ? 1 : 0;
}

/**
 * SIGTERM, SIGINT or SIGHUP (a closed terminal): claim nothing more, let running runs finish for
 * up to TRIPLINE_SHUTDOWN_GRACE_SECONDS (then stop them), put claimed runs that have not started
 * back in the queue. A second signal exits at once, killing the runs' process groups on the way
 * out (lib/domain/runs/executors/process-group.ts). Without a handler a signal would end the
 * process at once and leave them running.
 */
function onStopSignals(stop: (deadline: number) => void): void {
  let signals = 0;
  const handle = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) process.exit(1);
    const graceMs = parseEntryConfig().shutdownGraceMs;
    console.error(`tripline: ${signal}: finishing running runs (up to ${graceMs / 1000} s); a second signal exits at once`);
    stop(Date.now() + graceMs);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, handle);
}
