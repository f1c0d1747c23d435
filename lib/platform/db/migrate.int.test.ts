import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdapter, type OpenedAdapter } from '@/lib/platform/db/adapter';
import {
  applyPendingMigrations,
  createMigration,
  diffMigrationsToSchema,
  loadMigrationList,
  MIGRATION_LOCK_CONTENT,
  migrationStatus,
  readSchema,
} from '@/lib/platform/db/migrate';
import { testDatabaseKinds } from '@/tests/support/databases';
import { createPostgresDatabase } from '@/tests/support/postgres';

const migrationsDir = path.resolve('prisma/migrations');

function migrationNames(): string[] {
  return loadMigrationList(migrationsDir).migrationDirectories.map((directory) => directory.path);
}

/** Table names of the schema's models (the model name, or its @@map). */
function modelNames(): string[] {
  return [...readSchema().content.matchAll(/^model (\w+) \{([^}]*)\}/gm)].map(
    (match) => /@@map\("([^"]+)"\)/.exec(match[2]!)?.[1] ?? match[1]!,
  );
}

describe('the migration history', () => {
  it('builds exactly prisma/schema.prisma (a model change without a migration fails here)', async () => {
    expect(await diffMigrationsToSchema()).toBe('');
  });

  it('notices a schema change that no migration covers', async () => {
    const schema = readSchema();
    const changed = { ...schema, content: `${schema.content}\nmodel DriftProbe {\n  id Int @id\n}\n` };
    const sql = await diffMigrationsToSchema({ schema: changed });
    expect(sql).toContain('CREATE TABLE "DriftProbe"');
  });

  it('keeps Prisma Migrate’s layout', () => {
    const list = loadMigrationList(migrationsDir);
    expect(list.lockfile.content).toBe(MIGRATION_LOCK_CONTENT);
    expect(list.migrationDirectories.length).toBeGreaterThan(0);
    for (const directory of list.migrationDirectories) {
      expect(directory.path).toMatch(/^\d{14}_[a-z0-9_]+$/);
      expect(directory.migrationFile.content.tag).toBe('ok');
    }
  });

  it('creates a timestamped migration for new changes and nothing when in sync', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-migrations-'));
    try {
      const created = await createMigration('init', { migrationsDir: scratch, now: new Date('2024-05-06T07:08:09Z') });
      expect(created?.directory).toBe(path.join(scratch, '20240506070809_init'));
      expect(fs.readFileSync(path.join(scratch, 'migration_lock.toml'), 'utf8')).toBe(MIGRATION_LOCK_CONTENT);
      expect(fs.readFileSync(path.join(scratch, '20240506070809_init', 'migration.sql'), 'utf8')).toContain('CREATE TABLE "User"');

      expect(await createMigration('again', { migrationsDir: scratch })).toBeNull();
      expect(fs.readdirSync(scratch).sort()).toEqual(['20240506070809_init', 'migration_lock.toml']);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe.each(testDatabaseKinds())('applying migrations on %s', (kind) => {
  let adapter: OpenedAdapter;
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    if (kind === 'pglite') {
      adapter = openAdapter({ kind: 'memory' });
    } else {
      const created = await createPostgresDatabase('tripline_migrate');
      dropDatabase = created.drop;
      adapter = openAdapter({ kind: 'postgres', url: created.url }, { poolSize: 2 });
    }
  });

  afterAll(async () => {
    await adapter?.close();
    await dropDatabase?.();
  });

  async function query(sql: string): Promise<Record<string, unknown>[]> {
    const connection = await adapter.factory.connect();
    try {
      const result = await connection.queryRaw({ sql, args: [], argTypes: [] });
      return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])));
    } finally {
      await connection.dispose();
    }
  }

  it('reports every migration pending on a fresh database', async () => {
    expect(await migrationStatus(adapter)).toEqual({ applied: [], pending: migrationNames(), problems: [] });
  });

  it('applies every migration once', async () => {
    expect(await applyPendingMigrations(adapter)).toEqual(migrationNames());
    expect(await applyPendingMigrations(adapter)).toEqual([]);
  });

  it('records them in _prisma_migrations as Prisma Migrate does', async () => {
    const rows = await query(
      'SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    const expected = loadMigrationList(migrationsDir).migrationDirectories.map((directory) => {
      const content = directory.migrationFile.content;
      if (content.tag !== 'ok') throw new Error(content.value);
      return {
        migration_name: directory.path,
        checksum: createHash('sha256').update(content.value).digest('hex'),
        rolled_back_at: null,
        applied_steps_count: 1,
      };
    });
    expect(rows).toMatchObject(expected);
    for (const row of rows) expect(row.finished_at).not.toBeNull();
  });

  it('creates a table for every model', async () => {
    const rows = await query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()");
    const tables = rows.map((row) => row.table_name);
    expect(tables).toEqual(expect.arrayContaining([...modelNames(), '_prisma_migrations']));
  });

  it('then reports nothing pending', async () => {
    expect(await migrationStatus(adapter)).toEqual({ applied: migrationNames(), pending: [], problems: [] });
  });
});
