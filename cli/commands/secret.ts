import { deleteSecret, listSecrets, putSecret } from '@/lib/domain/secrets/service';
import { CLI, parseOptions, readStdin, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { factoryIdOrThrow } from '../factory';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} secret <subcommand> --factory <slug> [options]

  list                     names, versions and the webhooks that use them
  put --name <NAME>        reads the value from stdin (creates or replaces)
  delete --name <NAME>     refused while a webhook uses it

Webhooks take a replaced value up the next time they apply (toggle Enabled).`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, { factory: { type: 'string' }, name: { type: 'string' } });
    const subcommand = positionals[0];
    const slug = required(values.factory, 'factory');
    const value = subcommand === 'put' ? await readStdin() : undefined;
    return withDatabase(async (database) => {
      const factoryId = await factoryIdOrThrow(database, slug);
      switch (subcommand) {
        case 'list':
          for (const s of await listSecrets(factoryId, database.prisma)) {
            console.log([s.name, `v${s.version}`, s.updatedAt.toISOString(), s.usedBy.map((w) => w.name).join(',') || '-'].join('\t'));
          }
          return 0;
        case 'put': {
          const { created } = await putSecret(factoryId, required(values.name, 'name'), value ?? '', database.prisma);
          console.log(created ? 'created' : 'replaced');
          return 0;
        }
        case 'delete':
          await deleteSecret(factoryId, required(values.name, 'name'), database.prisma);
          console.log('deleted');
          return 0;
        default:
          throw new UsageError(subcommand ? `Unknown subcommand "${subcommand}"` : 'Missing subcommand');
      }
    });
  });
}
