import { randomBytes } from 'node:crypto';
import pg from 'pg';

// A throwaway PostgreSQL database on the test server (TEST_DATABASE_URL by
// default). Plain pg only, so Playwright's global setup can use it too.

/** Creates an empty PostgreSQL database on the TEST_DATABASE_URL server and returns its URL. */
export async function createPostgresDatabase(
  prefix = 'tripline_test',
  adminUrl = process.env.TEST_DATABASE_URL,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
