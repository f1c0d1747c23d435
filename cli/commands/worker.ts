import { env } from '@/lib/platform/env';
import { startWorkers } from '@/lib/domain/runs/worker';
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
      const pool = startWorkers(executor, slots, { drain: values.drain === true, log: (line) => console.error(`tripline: ${line}`) });
      // SIGTERM/SIGINT: claim nothing more, let running runs finish for up to
      // TRIPLINE_SHUTDOWN_GRACE_SECONDS (then stop them), put claimed runs that
      // have not started back in the queue. A second signal exits at once.
      let signals = 0;
      const stop = (signal: NodeJS.Signals) => {
        signals += 1;
        if (signals > 1) process.exit(1);
        const graceMs = parseEntryConfig().shutdownGraceMs;
        console.error(`tripline: ${signal}: finishing running runs (up to ${graceMs / 1000} s); a second signal exits at once`);
        void pool.stop(Date.now() + graceMs);
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      await pool.done;
      await stopTracing();
      return 0;
    });
  });
}
