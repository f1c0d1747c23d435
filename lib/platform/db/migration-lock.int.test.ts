import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '@/lib/platform/db';
import { applyPendingMigrations, loadMigrationList, MIGRATION_LOCK_KEY } from '@/lib/platform/db/migrate';
import { prepareDatabase } from '@/lib/platform/db/prepare';
import { createPostgresDatabase } from '@/tests/support/postgres';
import { budget } from '@/scripts/speed.mjs';

// Instances starting together on one PostgreSQL database: each runs
// prepareDatabase on its own pool, as a server does at start. The schema
// engine used to take its advisory lock on a connection of the app's pool and
// never release it, so the next instance waited 10 s and failed to start.
// (e2e/lifecycle/postgres-concurrent-start.spec.ts does the same with real
// server processes.)

const adminUrl = process.env.TEST_DATABASE_URL;
/** How long Prisma's schema engine waits for the migration lock before it fails. */
const ENGINE_LOCK_TIMEOUT_MS = 10_000;
const migrationNames = loadMigrationList().migrationDirectories.map((directory) => directory.path);

type Instance = { database: Database; lines: string[] };

async function startInstances(url: string, count: number): Promise<{ instances: Instance[]; ms: number }> {
  const instances = Array.from({ length: count }, () => ({
    database: openDatabase({ kind: 'postgres', url }, { poolSize: 3 }),
    lines: [] as string[],
  }));
  const started = Date.now();
  await Promise.all(instances.map((instance) => prepareDatabase(instance.database, (line) => instance.lines.push(line))));
  return { instances, ms: Date.now() - started };
}

function appliedBy(instance: Instance): string[] {
  return instance.lines.flatMap((line) => /^applied migration (\S+)$/.exec(line)?.[1] ?? []);
}

describe.skipIf(!adminUrl)('migrations under the advisory lock (PostgreSQL)', () => {
  let dropDatabase: () => Promise<void>;
  let url: string;
  const open: Database[] = [];

  beforeAll(async () => {
    ({ url, drop: dropDatabase } = await createPostgresDatabase('tripline_migration_lock'));
  });

  afterAll(async () => {
    await Promise.all(open.map((database) => database.close()));
    await dropDatabase?.();
  });

  async function query<Row>(sql: string, params: unknown[] = []): Promise<Row[]> {
    const database = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
    try {
      return (await database.adapter.pool!.query(sql, params)).rows as Row[];
    } finally {
      await database.close();
    }
  }

  it('three instances starting at once on a fresh database: one applies each migration, all start', async () => {
    const { instances } = await startInstances(url, 3);
    open.push(...instances.map((instance) => instance.database));
    const applied = instances.flatMap(appliedBy);
    expect(applied.sort()).toEqual([...migrationNames].sort());
    // One instance migrated; the others waited for it, then found nothing pending.
    expect(instances.filter((instance) => appliedBy(instance).length > 0)).toHaveLength(1);
    for (const instance of instances) expect(instance.lines.at(-1)).toMatch(/^database ready/);

    const rows = await query<{ migration_name: string; applied_steps_count: number; finished_at: Date | null }>(
      'SELECT migration_name, applied_steps_count, finished_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(rows.map((row) => row.migration_name)).toEqual(migrationNames);
    for (const row of rows) {
      expect(row.applied_steps_count).toBe(1);
      expect(row.finished_at).not.toBeNull();
    }
  });

  it('leaves no session holding the migration lock while the instances keep serving', async () => {
    // The instances' pools are still open (they are "serving").
    // pg_locks is server-wide: this database's only.
    const locks = await query(
      'SELECT pid FROM pg_locks WHERE locktype = $1 AND objid = $2 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
      ['advisory', MIGRATION_LOCK_KEY],
    );
    expect(locks).toEqual([]);
  });

  it('three more instances on the migrated database start at once, applying nothing', async () => {
    const { instances, ms } = await startInstances(url, 3);
    open.push(...instances.map((instance) => instance.database));
    expect(instances.flatMap(appliedBy)).toEqual([]);
    for (const instance of instances) expect(instance.lines.at(-1)).toMatch(/^database ready/);
    // Before the fix the second and third waited for the engine's 10 s lock timeout and failed.
    console.log(`three instances on the migrated database started in ${ms} ms (the engine's lock timeout: ${ENGINE_LOCK_TIMEOUT_MS} ms)`);
    expect(ms).toBeLessThan(ENGINE_LOCK_TIMEOUT_MS);
  });

  it('an instance with a migration to apply waits, without a time limit, while another holds the lock, and says so', async () => {
    // This instance's folder: the history plus one migration the database has not seen.
    const migrationsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-lock-migrations-'));
    fs.cpSync(path.resolve('prisma', 'migrations'), migrationsDir, { recursive: true });
    fs.mkdirSync(path.join(migrationsDir, '99991231000000_lock_test'));
    fs.writeFileSync(path.join(migrationsDir, '99991231000000_lock_test', 'migration.sql'), 'CREATE TABLE "LockTest" ("id" INTEGER);\n');
    const holder = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
    open.push(holder);
    const client = await holder.adapter.pool!.connect();
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    const waiting = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
    open.push(waiting);
    const lines: string[] = [];
    let done = false;
    const applying = applyPendingMigrations(waiting.adapter, { migrationsDir, log: (line) => lines.push(line) }).finally(() => {
      done = true;
    });
    // An instance whose history is current does not wait for the lock: it has nothing to apply.
    const current = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
    open.push(current);
    expect(await applyPendingMigrations(current.adapter)).toEqual([]);
    await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: budget(10_000) });
    // About time passing: the wait outlasts the schema engine's own lock timeout, which must not cut it short.
    await new Promise((resolve) => setTimeout(resolve, ENGINE_LOCK_TIMEOUT_MS + 1_000));
    expect(done).toBe(false);
    expect(lines).toEqual([`waiting for another instance to finish migrating (PostgreSQL advisory lock ${MIGRATION_LOCK_KEY})`]);
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
    client.release();
    expect(await applying).toEqual(['99991231000000_lock_test']);
    expect(lines[1]).toMatch(/^migration lock acquired after \d+\.\d s$/);
    fs.rmSync(migrationsDir, { recursive: true, force: true });
  });
});
