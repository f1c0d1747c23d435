import { getDatabase, openDatabase, peekDatabase, setDatabase, type Database, type TransactionLimits } from '@/lib/platform/db';
import { targetFromEnv, type DatabaseTarget } from '@/lib/platform/db/adapter';
import { env } from '@/lib/platform/env';
import { migrationStatus } from '@/lib/platform/db/migrate';
import { prepareDatabase } from '@/lib/platform/db/prepare';
import { moveRepositoryCredentials } from '@/lib/domain/definitions/repository-credentials';
import { AppError } from '@/lib/platform/http/errors';

/**
 * The limits of the CLI's interactive transactions, for every command that
 * opens the database with withDatabase (the domain services it calls set none
 * of their own). A command is an operator's one-off: `tripline setup`, a
 * definitions apply or a seeding script on a machine under extreme load
 * failed with "Transaction is closed" at Prisma's 5 s (benchmarks/history.md,
 * issue 48), where waiting longer is what the operator wants. A server keeps
 * Prisma's defaults: there a transaction that takes this long is held up by
 * others and should give way.
 */
export const CLI_TRANSACTION_LIMITS: TransactionLimits = { maxWait: 60_000, timeout: 60_000 };

/** The CLI's database at `target`, with its transaction limits. */
export function openCliDatabase(target: DatabaseTarget, options: { poolSize?: number } = {}): Database {
  return openDatabase(target, { ...options, transactionOptions: CLI_TRANSACTION_LIMITS });
}

/** Opens the configured database (migrating it if needed), runs fn, closes it. */
export async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  // A database set already (a test's) is used as it is.
  if (!peekDatabase()) setDatabase(openCliDatabase(targetFromEnv(env())));
  const database = getDatabase();
  try {
    await prepareDatabase(database, (line) => console.error(`tripline: ${line}`));
    // The same upgrade step as the server's start: no repository URL keeps a credential in clear.
    await moveRepositoryCredentials(database.prisma);
    return await fn(database);
  } finally {
    await database.close();
    setDatabase(undefined);
  }
}

/**
 * For `tripline worker`: opens the configured database without migrating it
 * and without the keys. A worker only claims and finishes runs, so it needs
 * DATABASE_URL and nothing else of the server's secrets; it can run under its
 * own OS user or on its own host (docs/security.md). It refuses a database
 * whose migrations are not all applied (a server or `migrate deploy` does that).
 */
export async function withWorkerDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const database = getDatabase();
  try {
    const status = await migrationStatus(database.adapter);
    if (status.pending.length || status.problems.length) {
      const what = status.pending.length ? `${status.pending.length} pending migration(s) (${status.pending.join(', ')})` : status.problems.join('; ');
      throw new AppError('conflict', `The database is not ready for this worker: ${what}. Apply them with \`tripline migrate deploy\` or by starting a server, then start the worker.`);
    }
    return await fn(database);
  } finally {
    await database.close();
    setDatabase(undefined);
  }
}
