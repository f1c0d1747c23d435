import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openAdapter, type OpenedAdapter } from '@/lib/platform/db/adapter';
import { applyPendingMigrations, MIGRATION_LOCK_CONTENT, migrationStatus } from '@/lib/platform/db/migrate';
import { withFinishedMark } from '@/lib/platform/db/schema-engine';
import { budget } from '@/scripts/speed.mjs';
import { testDatabaseKinds } from '@/tests/support/databases';
import { createPostgresDatabase } from '@/tests/support/postgres';
import { cliArgs } from '@/tests/support/bundle';
import { ONE_SHOT_FLAGS } from '@/cli/one-shot-flags';

// A process that dies while it migrates (a signal during a start, SIGKILL, a lost machine) leaves
// its migration begun and not finished in _prisma_migrations; its transaction rolled back. The next
// start records it rolled back and applies it again, where Prisma alone refuses every later start
// until an operator runs `migrate resolve`. A migration that failed with an error still waits for
// the operator.

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-interrupted-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const FIRST = '20240101000000_first';
const SECOND = '20240101000001_second';
const THIRD = '20240101000002_third';
const FOURTH = '20240101000003_fourth';
const SCRIPTS: Record<string, string> = {
  [FIRST]: 'CREATE TABLE "First" ("id" INTEGER PRIMARY KEY);\n',
  // Sleeps while "First" has no row 1: a migration that is running when its process dies.
  [SECOND]: 'CREATE TABLE "Second" ("id" INTEGER);\nINSERT INTO "First" VALUES (2);\nSELECT pg_sleep(600) WHERE NOT EXISTS (SELECT 1 FROM "First" WHERE "id" = 1);\n',
  [THIRD]: 'CREATE TABLE "Third" ("id" INTEGER);\n',
  [FOURTH]: 'ALTER TABLE "First" ADD COLUMN "note" TEXT;\n',
};
const checksum = (name: string) => createHash('sha256').update(SCRIPTS[name]!).digest('hex');

/** A migrations folder holding the named migrations. */
function migrations(label: string, names: string[]): string {
  const dir = path.join(scratch, label, 'prisma', 'migrations');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration_lock.toml'), MIGRATION_LOCK_CONTENT);
  for (const name of names) {
    fs.mkdirSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, name, 'migration.sql'), SCRIPTS[name]!);
  }
  return dir;
}

async function query<Row>(adapter: OpenedAdapter, sql: string): Promise<Row[]> {
  if (adapter.pglite) return (await adapter.pglite.query<Row>(sql)).rows;
  return (await adapter.pool!.query(sql)).rows as Row[];
}

/** The row Prisma's engine writes when it begins a migration, before it runs the script. */
const begun = (name: string, logs: string | null = null) =>
  `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at, applied_steps_count)
   VALUES ('${randomUUID()}', '${checksum(name)}', '${name}', ${logs === null ? 'NULL' : `'${logs}'`}, now(), 0)`;

type History = { migration_name: string; finished: boolean; rolled_back: boolean };
const history = (adapter: OpenedAdapter) =>
  query<History>(adapter, 'SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations ORDER BY started_at, migration_name');

describe.each(testDatabaseKinds())('a migration interrupted on %s', (kind) => {
  async function open(label: string): Promise<{ adapter: OpenedAdapter; close: () => Promise<void> }> {
    if (kind === 'pglite') {
      const adapter = openAdapter({ kind: 'memory' });
      return { adapter, close: () => adapter.close() };
    }
    const created = await createPostgresDatabase(`tripline_interrupted_${label}`);
    const adapter = openAdapter({ kind: 'postgres', url: created.url }, { poolSize: 2 });
    return { adapter, close: async () => (await adapter.close(), await created.drop()) };
  }

  it('is recorded rolled back and applied again at the next start; one that failed still waits for an operator', async () => {
    const { adapter, close } = await open('again');
    try {
      expect(await applyPendingMigrations(adapter, { migrationsDir: migrations(`${kind}-again-1`, [FIRST]) })).toEqual([FIRST]);
      // A process began SECOND and died: its row, and none of its changes.
      await query(adapter, begun(SECOND));
      await query(adapter, 'INSERT INTO "First" VALUES (1)');
      const all = migrations(`${kind}-again-2`, [FIRST, SECOND]);
      // Nothing for an operator to do: status lists it pending, as the next start applies it.
      expect(await migrationStatus(adapter, { migrationsDir: all })).toEqual({ applied: [FIRST], pending: [SECOND], problems: [] });

      const lines: string[] = [];
      expect(await applyPendingMigrations(adapter, { migrationsDir: all, log: (line) => lines.push(line) })).toEqual([SECOND]);
      expect(lines).toContain(`migration ${SECOND} was interrupted before it finished (its transaction rolled back); applying it again`);
      expect(await history(adapter)).toEqual([
        { migration_name: FIRST, finished: true, rolled_back: false },
        { migration_name: SECOND, finished: false, rolled_back: true },
        { migration_name: SECOND, finished: true, rolled_back: false },
      ]);
      expect(await query(adapter, 'SELECT "id" FROM "First" ORDER BY "id"')).toEqual([{ id: 1 }, { id: 2 }]);
      expect(await migrationStatus(adapter, { migrationsDir: all })).toEqual({ applied: [FIRST, SECOND], pending: [], problems: [] });

      // THIRD failed with an error: the engine wrote it in logs, and the next start refuses as before.
      await query(adapter, begun(THIRD, 'relation "Third" already exists (SQLSTATE 42P07)'));
      expect((await migrationStatus(adapter, { migrationsDir: migrations(`${kind}-again-4`, [FIRST, SECOND, THIRD]) })).problems).toEqual([
        `${THIRD} failed to apply; repair the database, then mark it rolled back or applied (migrate resolve)`,
      ]);
      await expect(applyPendingMigrations(adapter, { migrationsDir: migrations(`${kind}-again-3`, [FIRST, SECOND, THIRD]) })).rejects.toThrow(/failed migrations/);
    } finally {
      await close();
    }
  });

  it('is recorded finished by its own transaction, so one that committed is never applied twice', async () => {
    const { adapter, close } = await open('mark');
    try {
      await applyPendingMigrations(adapter, { migrationsDir: migrations(`${kind}-mark-1`, [FIRST]) });
      await query(adapter, 'INSERT INTO "First" VALUES (1)');
      // The engine began THIRD, the script committed, and the process died before the engine recorded it.
      await query(adapter, begun(THIRD));
      const script = withFinishedMark(SCRIPTS[THIRD]!);
      if (adapter.pglite) await adapter.pglite.exec(script);
      else await adapter.pool!.query(script);
      expect(await history(adapter)).toEqual([
        { migration_name: FIRST, finished: true, rolled_back: false },
        { migration_name: THIRD, finished: true, rolled_back: false },
      ]);
      // Applied, not again: running THIRD twice would fail on its table.
      expect(await applyPendingMigrations(adapter, { migrationsDir: migrations(`${kind}-mark-2`, [FIRST, THIRD]) })).toEqual([]);

      // A script that fails rolls its mark back with it.
      await query(adapter, begun(SECOND));
      const failing = withFinishedMark(`${SCRIPTS[SECOND]}SELECT 1/0;`);
      await expect(adapter.pglite ? adapter.pglite.exec(failing) : adapter.pool!.query(failing)).rejects.toThrow(/division by zero/);
      expect((await history(adapter)).at(-1)).toEqual({ migration_name: SECOND, finished: false, rolled_back: false });
      expect(await query(adapter, `SELECT to_regclass('"Second"') IS NULL AS "absent"`)).toEqual([{ absent: true }]);
    } finally {
      await close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('a migration that waits for a table (PostgreSQL)', () => {
  it('gives way after its lock timeout, so serving instances are not held up behind it, and is tried again until it applies', async () => {
    const { url, drop } = await createPostgresDatabase('tripline_migration_gives_way');
    const adapter = openAdapter({ kind: 'postgres', url }, { poolSize: 2 });
    const serving = new pg.Client({ connectionString: url });
    try {
      await applyPendingMigrations(adapter, { migrationsDir: migrations('gives-way-1', [FIRST]) });
      // A serving instance's long transaction reads "First": FOURTH's ALTER TABLE cannot have the table.
      await serving.connect();
      await serving.query('BEGIN');
      await serving.query('SELECT * FROM "First"');
      const lines: string[] = [];
      const applying = applyPendingMigrations(adapter, { migrationsDir: migrations('gives-way-2', [FIRST, FOURTH]), lockTimeoutMs: 200, retryMs: 100, log: (line) => lines.push(line) });
      // It gives way at every try, not only the first: a try on a session that lost its lock_timeout would wait for ever.
      const gaveWay = () => lines.filter((line) => line.startsWith(`migration ${FOURTH} waited 0.2 s for a table another session holds, and gave way`)).length;
      const deadline = Date.now() + budget(20_000);
      while (gaveWay() < 3) {
        if (Date.now() > deadline) throw new Error(`the migration gave way ${gaveWay()} times, then waited for the table: ${JSON.stringify(lines)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Another serving instance reads "First" meanwhile: it waits at most for one of the migration's tries, never
      // behind a migration that waits for ever (PostgreSQL queues new requests for the table behind its request).
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      try {
        await other.query("SET lock_timeout = '30s'");
        expect((await other.query('SELECT count(*)::int AS "n" FROM "First"')).rows).toEqual([{ n: 0 }]);
      } finally {
        await other.end();
      }
      await serving.query('COMMIT');
      expect(await applying).toEqual([FOURTH]);
      expect(lines.at(-1)).toContain('trying it again in');
      const tried = (await history(adapter)).filter((row) => row.migration_name === FOURTH);
      expect(tried.at(-1)).toEqual({ migration_name: FOURTH, finished: true, rolled_back: false });
      expect(tried.slice(0, -1).length).toBeGreaterThan(0);
      for (const row of tried.slice(0, -1)) expect(row).toEqual({ migration_name: FOURTH, finished: false, rolled_back: true });
      expect((await serving.query(`SELECT count(*)::int AS "n" FROM information_schema.columns WHERE table_name = 'First' AND column_name = 'note'`)).rows).toEqual([{ n: 1 }]);
    } finally {
      await serving.end();
      await adapter.close();
      await drop();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('a migrating process killed with SIGKILL (PostgreSQL)', () => {
  it('leaves nothing for an operator: the next `migrate deploy` applies the migration once', async () => {
    const { url, drop } = await createPostgresDatabase('tripline_interrupted_kill');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // An application folder of its own: this schema, and migrations whose second one sleeps.
    const app = path.join(scratch, 'kill-app');
    migrations('kill-app', [FIRST, SECOND]);
    fs.copyFileSync(path.join(root, 'prisma', 'schema.prisma'), path.join(app, 'prisma', 'schema.prisma'));
    fs.symlinkSync(path.join(root, 'lib'), path.join(app, 'lib'));
    const deploy = () =>
      spawn(process.execPath, [...ONE_SHOT_FLAGS, ...cliArgs(['migrate', 'deploy'])], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: url, TRIPLINE_APP_DIR: app },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    try {
      const child = deploy();
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      // Killed while SECOND's script runs: its row is written and its sleep has begun.
      for (;;) {
        const { rows } = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()`);
        if (rows.length) break;
        expect(child.exitCode, 'migrate deploy ended before its second migration ran').toBeNull();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      await admin.query('INSERT INTO "First" VALUES (1)');

      const again = deploy();
      let output = '';
      again.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      again.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => again.once('exit', resolve));
      expect(output).toContain(`migration ${SECOND} was interrupted before it finished (its transaction rolled back); applying it again`);
      expect(output).toContain(`Applied ${SECOND}`);
      expect(code).toBe(0);
      // The killed run's changes are gone: "First" holds the test's row and the second run's, once.
      expect((await admin.query('SELECT "id" FROM "First" ORDER BY "id"')).rows).toEqual([{ id: 1 }, { id: 2 }]);
      const { rows } = await admin.query(`SELECT count(*)::int AS "n" FROM _prisma_migrations WHERE migration_name = '${SECOND}' AND finished_at IS NOT NULL AND rolled_back_at IS NULL`);
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await admin.end();
      await drop();
    }
  });
});
