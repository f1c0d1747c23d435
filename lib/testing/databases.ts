import { openDatabase, type Database } from '@/lib/db';
import type { DatabaseTarget } from '@/lib/db/adapter';
import { applyPendingMigrations } from '@/lib/db/migrate';
import { createPostgresDatabase } from '@/lib/testing/postgres';

// Integration tests run against both databases Tripline supports: embedded
// PGlite (in memory) and a real PostgreSQL server. Each test database is
// fresh: a new PGlite instance, or a new database on the server named by
// TEST_DATABASE_URL that is dropped afterwards. Under CI=true a missing
// TEST_DATABASE_URL is an error, never a skip.

export type TestDatabase = Database & { kind: 'pglite' | 'postgres'; url?: string; drop: () => Promise<void> };

export type TestDatabaseKind = TestDatabase['kind'];

export function testDatabaseKinds(): TestDatabaseKind[] {
  if (process.env.TEST_DATABASE_URL) return ['pglite', 'postgres'];
  if (process.env.CI === 'true') {
    throw new Error('TEST_DATABASE_URL must point at a PostgreSQL server under CI (e.g. postgresql://postgres@127.0.0.1:5432/postgres)');
  }
  console.warn('[tests] TEST_DATABASE_URL is not set: PostgreSQL integration tests are skipped (set it to run them).');
  return ['pglite'];
}

/** A fresh, migrated database of the given kind. */
export async function createTestDatabase(kind: TestDatabaseKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const database = openDatabase({ kind: 'memory' });
    await applyPendingMigrations(database.adapter);
    return { ...database, kind, drop: database.close };
  }
  const created = await createPostgresDatabase();
  const target: DatabaseTarget = { kind: 'postgres', url: created.url };
  const database = openDatabase(target, { poolSize: 5 });
  await applyPendingMigrations(database.adapter);
  return {
    ...database,
    kind,
    url: created.url,
    drop: async () => {
      await database.close();
      await created.drop();
    },
  };
}
