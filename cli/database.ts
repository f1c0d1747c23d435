import { getDatabase, setDatabase, type Database } from '@/lib/platform/db';
import { migrationStatus } from '@/lib/platform/db/migrate';
import { prepareDatabase } from '@/lib/platform/db/prepare';
import { moveRepositoryCredentials } from '@/lib/domain/definitions/repository-credentials';
import { AppError } from '@/lib/platform/http/errors';

/** Opens the configured database (migrating it if needed), runs fn, closes it. */
export async function withDatabase<T>(fn: (database: Database) => Promise<T>): Promise<T> {
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
