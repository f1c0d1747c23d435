import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '@/lib/platform/db';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import type { TestDatabaseKind } from '@/tests/support/databases';
import { createPostgresDatabase } from '@/tests/support/postgres';

// For tests of a data migration: a database of the given kind, empty (not
// migrated), and a copy of the migrations folder as it was just before the
// migration under test, so the test can fill the old schema, then migrate.

export const migrationsDir = path.resolve('prisma/migrations');

/** The full name of the migration whose name ends with `suffix`. */
export function migrationNamed(suffix: string): string {
  const name = fs.readdirSync(migrationsDir).find((entry) => entry.endsWith(suffix));
  if (!name) throw new Error(`no migration ends with ${suffix}`);
  return name;
}

/** A copy of the migrations folder holding only the migrations before `migration` (removed by `cleanups`). */
export function migrationsBefore(migration: string, cleanups: Array<() => unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-migrations-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Names sort by timestamp; migration_lock.toml sorts after every one of them and is not needed.
  for (const entry of fs.readdirSync(migrationsDir)) {
    if (entry >= migration) continue;
    fs.cpSync(path.join(migrationsDir, entry), path.join(dir, entry), { recursive: true });
  }
  return dir;
}

/** An empty database of `kind` (closed and dropped by `cleanups`). */
export async function openEmptyDatabase(kind: TestDatabaseKind, cleanups: Array<() => unknown>): Promise<Database> {
  let database: Database;
  if (kind === 'pglite') {
    database = openDatabase({ kind: 'memory' });
  } else {
    const created = await createPostgresDatabase();
    cleanups.push(created.drop);
    database = openDatabase({ kind: 'postgres', url: created.url }, { poolSize: 2 });
  }
  cleanups.push(() => database.close());
  return database;
}

/**
 * An empty database of `kind` migrated up to just before `migration`, holding
 * factory `f1` with webhook `w1` (UID `wh_1`), ready for a log to be written
 * in the old schema (closed and dropped by `cleanups`).
 */
export async function openWebhookBefore(kind: TestDatabaseKind, migration: string, cleanups: Array<() => unknown>): Promise<Database> {
  const database = await openEmptyDatabase(kind, cleanups);
  await applyPendingMigrations(database.adapter, { migrationsDir: migrationsBefore(migration, cleanups) });
  await database.prisma.$executeRawUnsafe(`INSERT INTO "Factory" ("id", "slug", "name", "updatedAt") VALUES ('f1', 'f', 'F', now())`);
  await database.prisma.$executeRawUnsafe(
    `INSERT INTO "Webhook" ("id", "factoryId", "uid", "name", "secretName", "updatedAt") VALUES ('w1', 'f1', 'wh_1', 'hook', 'S', now())`,
  );
  return database;
}
