import { expect, test } from '@playwright/test';
import pg from 'pg';
import { createPostgresDatabase } from '../../tests/support/postgres';
import { newDataDir, serverEnv, startServer } from '../servers';

// `npm start` with DATABASE_URL pointing at an empty PostgreSQL database:
// the server applies the migrations itself at start, recorded in
// _prisma_migrations as Prisma Migrate records them, and serves first run.

const adminUrl = process.env.TEST_DATABASE_URL;
const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 5;

test('a server on an empty PostgreSQL database migrates it at start', async ({ page }) => {
  test.skip(!adminUrl, 'needs TEST_DATABASE_URL (always set under CI)');
  const database = await createPostgresDatabase('tripline_e2e_start', adminUrl);
  const server = await startServer('postgres-start', port, serverEnv(newDataDir('postgres-start'), `http://localhost:${port}`, { DATABASE_URL: database.url }));
  try {
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const { rows } = await db.query('SELECT migration_name, finished_at, rolled_back_at, applied_steps_count, checksum FROM _prisma_migrations ORDER BY migration_name');
    await db.end();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      expect(row.finished_at).not.toBeNull();
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
    await page.goto(`${server.url}/`);
    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.getByRole('heading', { name: 'Set up Tripline' })).toBeVisible();
  } finally {
    await server.stop();
    await database.drop();
  }
});
