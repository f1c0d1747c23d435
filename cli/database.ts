import { getDatabase, setDatabase, type Database } from '@/lib/db';
import { prepareDatabase } from '@/lib/db/prepare';
import { moveRepositoryCredentials } from '@/lib/definitions/repository-credentials';

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
