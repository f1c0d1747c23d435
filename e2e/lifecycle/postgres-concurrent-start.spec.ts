import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import pg from 'pg';
import { createPostgresDatabase } from '../../tests/support/postgres';
import { startServer, type RunningServer } from '../servers';

// Three servers started at the same moment on one PostgreSQL database, first
// empty, then migrated: all three serve, and exactly one applies each
// migration (the others wait on the migration lock, then find nothing
// pending). One of two instances used to exit with "Timed out trying to
// acquire a postgres advisory lock".

const adminUrl = process.env.TEST_DATABASE_URL;
const portBase = Number(process.env.E2E_PORT_BASE ?? 3210) + 10;
const root = path.resolve(import.meta.dirname, '..', '..');
const migrationNames = fs
  .readdirSync(path.join(root, 'prisma', 'migrations'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

async function startThree(round: string, databaseUrl: string, keys: Record<string, string>): Promise<RunningServer[]> {
  // Spawned together: startServer spawns at once and then waits for its server.
  const results = await Promise.allSettled(
    [0, 1, 2].map((i) =>
      startServer(`concurrent-${round}-${i}`, portBase + i, {
        DATABASE_URL: databaseUrl,
        TRIPLINE_DATA_DIR: path.join(root, 'test-results', 'e2e-data', `concurrent-${round}-${i}-${Date.now().toString(36)}`),
        TRIPLINE_BASE_URL: `http://localhost:${portBase + i}`,
        ...keys,
      }),
    ),
  );
  const servers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
  if (failures.length > 0) {
    await Promise.all(servers.map((server) => server.stop()));
    throw new Error(failures.join('\n\n'));
  }
  return servers;
}

function appliedIn(server: RunningServer): string[] {
  return [...fs.readFileSync(server.logFile, 'utf8').matchAll(/"msg":"applied migration ([^"]+)"/g)].map((match) => match[1]!);
}

test('three servers starting at once on one PostgreSQL database: all serve, each migration applied once', async ({ request }) => {
  test.skip(!adminUrl, 'needs TEST_DATABASE_URL (always set under CI)');
  test.setTimeout(budget(240_000));
  const database = await createPostgresDatabase('tripline_e2e_concurrent', adminUrl);
  const keys = { TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'), TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url') };
  try {
    for (const round of ['fresh', 'migrated']) {
      const servers = await startThree(round, database.url, keys);
      try {
        for (const server of servers) {
          expect((await request.get(`${server.url}/healthz`)).status()).toBe(200);
          expect((await request.get(`${server.url}/signin`)).status()).toBe(200);
          const log = fs.readFileSync(server.logFile, 'utf8');
          expect(log).toMatch(/"msg":"database ready/);
          expect(log).not.toContain('cannot start');
        }
        const applied = servers.map(appliedIn);
        if (round === 'fresh') {
          // One server applied all of them; the others none.
          expect(applied.flat().sort()).toEqual([...migrationNames].sort());
          expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
        } else {
          expect(applied.flat()).toEqual([]);
        }
        const db = new pg.Client({ connectionString: database.url });
        await db.connect();
        try {
          const { rows } = await db.query<{ migration_name: string; applied_steps_count: number; finished_at: Date | null }>(
            'SELECT migration_name, applied_steps_count, finished_at FROM _prisma_migrations ORDER BY migration_name',
          );
          expect(rows.map((row) => row.migration_name)).toEqual(migrationNames);
          for (const row of rows) {
            expect(row.applied_steps_count).toBe(1);
            expect(row.finished_at).not.toBeNull();
          }
          // While they serve, no session keeps the migration lock (pg_locks is server-wide: this database's only).
          const locks = await db.query(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = 72707369 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
          );
          expect(locks.rows).toEqual([]);
        } finally {
          await db.end();
        }
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    }
  } finally {
    await database.drop();
  }
});
