import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '@/lib/platform/db';
import type { DatabaseTarget } from '@/lib/platform/db/adapter';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { createPostgresDatabase } from '@/tests/support/postgres';

// Integration tests run against both databases Tripline supports: embedded
// PGlite (in memory) and a real PostgreSQL server. Each test database is
// fresh: a new PGlite instance, or a new database on the server named by
// TEST_DATABASE_URL that is dropped afterwards. Under CI=true a missing
// TEST_DATABASE_URL is an error, never a skip.
//
// A new PGlite spends seconds in initdb; the migrations take a fraction of a
// second. So the first test to need one migrates a new PGlite and keeps a
// dump of its data folder in the system's temporary folder, named by a hash of
// the migrations and PGlite's version, and every later one (in any test file,
// in later runs) starts from that dump. It is still migrated as usual, which
// finds nothing pending unless the dump is out of date.

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
    const database = openDatabase({ kind: 'memory', from: await migratedPglite() });
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

/** A dump of a freshly migrated PGlite's data folder, made once and kept on disk (see above). */
export async function migratedPglite(): Promise<ArrayBuffer> {
  const root = path.resolve(import.meta.dirname, '../..');
  const migrations = path.join(root, 'prisma', 'migrations');
  const hash = createHash('sha256');
  hash.update(JSON.parse(fs.readFileSync(path.join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version);
  for (const name of fs.readdirSync(migrations).sort()) {
    const file = path.join(migrations, name, 'migration.sql');
    if (fs.existsSync(file)) hash.update(name).update(fs.readFileSync(file));
  }
  const cached = path.join(os.tmpdir(), `tripline-pglite-migrated-${hash.digest('hex').slice(0, 16)}.tar.gz`);
  if (!fs.existsSync(cached)) {
    const database = openDatabase({ kind: 'memory' });
    try {
      await applyPendingMigrations(database.adapter);
      const dump = Buffer.from(await (await database.adapter.pglite!.dumpDataDir('gzip')).arrayBuffer());
      // Written whole, then renamed: a concurrent run reads the old file or the new one, never half of one.
      const partial = `${cached}.${process.pid}`;
      fs.writeFileSync(partial, dump);
      fs.renameSync(partial, cached);
    } finally {
      await database.close();
    }
  }
  const bytes = fs.readFileSync(cached);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
