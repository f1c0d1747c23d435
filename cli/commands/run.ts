import { cancelRun } from '@/lib/domain/runs/cancel';
import { CLI, parseOptions, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { CLI_ACTOR, factoryIdOrThrow } from '../factory';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} run cancel <run id> --factory <slug>

Cancel an automation run (docs/automations.md, Cancelling a run). A run that
has not started ends Cancelled at once. A running one is stopped by the
worker that holds it, on whichever instance, within about a second: the
command's process group gets SIGTERM, then SIGKILL after
TRIPLINE_RUN_CANCEL_GRACE_SECONDS; an HTTP executor's request is aborted and
its receiver sent run.cancelled.`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, { factory: { type: 'string' } });
    const [subcommand, id] = positionals;
    if (subcommand !== 'cancel') throw new UsageError(subcommand ? `Unknown subcommand "${subcommand}"` : 'Missing subcommand');
    if (!id) throw new UsageError('Missing the run id');
    const slug = required(values.factory, 'factory');
    return withDatabase(async (database) => {
      const cancelled = await cancelRun(await factoryIdOrThrow(database, slug), id, CLI_ACTOR, database.prisma);
      console.log(cancelled.status === 'cancelled' ? `cancelled ${cancelled.id}` : `cancelling ${cancelled.id}: its worker stops the run within seconds`);
      return 0;
    });
  });
}
