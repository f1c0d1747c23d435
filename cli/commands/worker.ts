import { env } from '@/lib/env';
import { startWorkers } from '@/lib/runs/worker';
import { parseOptions, UsageError } from '../args';
import { withWorkerDatabase } from '../database';
import { runCommand } from '../run-command';

export const summary = 'Execute queued runs with the configured executor';

const usage = `Usage: npm run tripline -- worker [--slots <n>] [--drain]

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
      const pool = startWorkers(executor, slots, { drain: values.drain === true, log: (line) => console.error(`tripline: ${line}`) });
      const stop = () => void pool.stop();
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      await pool.done;
      return 0;
    });
  });
}
