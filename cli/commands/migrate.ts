import path from 'node:path';
import { describeTarget, openAdapter, targetFromEnv, type OpenedAdapter } from '@/lib/platform/db/adapter';
import {
  applyPendingMigrations,
  createMigration,
  diffMigrationsToSchema,
  migrationStatus,
  resolveMigration,
} from '@/lib/platform/db/migrate';
import { env } from '@/lib/platform/env';
import { CLI, parseOptions, UsageError } from '../args';

// `tripline migrate`: Prisma Migrate's everyday commands on the WebAssembly
// schema engine (lib/platform/db/migrate.ts). deploy/status/resolve act on the
// configured database (DATABASE_URL, else embedded PGlite in
// TRIPLINE_DATA_DIR); create/check need no database at all.

const help = `Usage: ${CLI} migrate <subcommand> [options]

Subcommands:
  deploy                    Apply pending migrations to the configured database
  status                    List applied and pending migrations (exit 1 if any are pending or failed)
  create --name <name>      Write prisma/migrations/<timestamp>_<name>/migration.sql for the
                            changes in prisma/schema.prisma (name: lowercase, digits, underscores)
  check                     Exit 1, printing the SQL, if prisma/schema.prisma has changes that no
                            migration covers (for CI)
  resolve --rolled-back <name> | --applied <name>
                            Record the outcome of a failed migration after repairing the database

The database is PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite
in TRIPLINE_DATA_DIR (default .data).`;

export async function run(args: string[]): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    console.log(help);
    return subcommand === undefined ? 2 : 0;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(help);
    return 0;
  }
  try {
    switch (subcommand) {
      case 'deploy':
        noOptions(rest);
        return await withConfiguredDatabase(deploy);
      case 'status':
        noOptions(rest);
        return await withConfiguredDatabase(status);
      case 'create':
        return await create(rest);
      case 'check':
        noOptions(rest);
        return await check();
      case 'resolve':
        return await resolve(rest);
      default:
        throw new UsageError(`Unknown subcommand "${subcommand}".`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${help}`);
      return 2;
    }
    console.error(`migrate ${subcommand} failed: ${engineMessage(error)}`);
    return 1;
  }
}

async function deploy(adapter: OpenedAdapter): Promise<number> {
  const applied = await applyPendingMigrations(adapter, { log: (line) => console.log(line) });
  if (applied.length === 0) {
    console.log('Database is up to date');
  } else {
    for (const name of applied) console.log(`Applied ${name}`);
    console.log(`${applied.length} migration${applied.length === 1 ? '' : 's'} applied`);
  }
  return 0;
}

async function status(adapter: OpenedAdapter): Promise<number> {
  const { applied, pending, problems } = await migrationStatus(adapter);
  console.log(`Applied: ${applied.length}`);
  for (const name of applied) console.log(`  ${name}`);
  if (pending.length > 0) {
    console.log(`Pending: ${pending.length} (run: ${CLI} migrate deploy)`);
    for (const name of pending) console.log(`  ${name}`);
  }
  for (const problem of problems) console.error(`Problem: ${problem}`);
  if (pending.length === 0 && problems.length === 0) console.log('Database is up to date');
  return pending.length === 0 && problems.length === 0 ? 0 : 1;
}

async function create(args: string[]): Promise<number> {
  const { name } = parseOptions(args, { name: { type: 'string' } }, { allowPositionals: false }).values;
  if (!name) throw new UsageError('migrate create needs --name <name>, e.g. --name add_run_index.');
  if (!/^[a-z0-9_]+$/.test(name)) {
    throw new UsageError(`Invalid migration name "${name}": use lowercase letters, digits and underscores.`);
  }
  const created = await createMigration(name);
  if (!created) {
    console.log('No schema changes: prisma/schema.prisma matches the migration history');
    return 0;
  }
  console.log(`Created ${path.relative(process.cwd(), path.join(created.directory, 'migration.sql'))}`);
  console.log(`Review the SQL, then apply it with: ${CLI} migrate deploy`);
  return 0;
}

async function check(): Promise<number> {
  const sql = await diffMigrationsToSchema();
  if (sql === '') {
    console.log('prisma/schema.prisma matches the migration history');
    return 0;
  }
  console.error('prisma/schema.prisma has changes that no migration covers. The missing migration is:\n');
  console.error(sql.trimEnd());
  console.error(`\nCreate it with: ${CLI} migrate create --name <name>`);
  return 1;
}

async function resolve(args: string[]): Promise<number> {
  const options = parseOptions(args, { 'rolled-back': { type: 'string' }, applied: { type: 'string' } }, { allowPositionals: false }).values;
  const rolledBack = options['rolled-back'];
  const applied = options.applied;
  if (!rolledBack === !applied) throw new UsageError('migrate resolve needs exactly one of --rolled-back <name> or --applied <name>.');
  return withConfiguredDatabase(async (adapter) => {
    if (rolledBack) {
      await resolveMigration(adapter, rolledBack, 'rolled-back');
      console.log(`Marked ${rolledBack} as rolled back: the next deploy applies it again`);
    } else if (applied) {
      await resolveMigration(adapter, applied, 'applied');
      console.log(`Marked ${applied} as applied`);
    }
    return 0;
  });
}

async function withConfiguredDatabase(fn: (adapter: OpenedAdapter) => Promise<number>): Promise<number> {
  const adapter = openAdapter(targetFromEnv(env()), { poolSize: 2 });
  try {
    console.log(`Database: ${describeTarget(adapter.target)}`);
    return await fn(adapter);
  } finally {
    await adapter.close();
  }
}

function noOptions(args: string[]): void {
  if (args.length > 0) throw new UsageError(`Unexpected argument "${args[0]}".`);
}

// Engine errors end with a Rust span trace ("   0: schema_engine_wasm::...")
// that means nothing to someone running a deploy, apart from the name of the
// migration that failed.
function engineMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const trace = message.search(/\n\s+0: /);
  if (trace === -1) return message.trim();
  const migration = /migration_name="([^"]+)"/.exec(message.slice(trace))?.[1];
  return `${migration ? `migration ${migration}: ` : ''}${message.slice(0, trace).trim()}`;
}
