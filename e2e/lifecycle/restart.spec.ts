import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { cli, migratedDataDir, startServer, type RunningServer } from '../servers';

// `npm start` on the embedded database keeps everything across a restart:
// the account and factory, API tokens, generated keys, and browser sessions;
// and a server started with the test clock on warns at start.

const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 3;

test('the embedded database, keys and sessions survive a restart', async ({ page, request }) => {
  // Two CLI runs and two server starts: over a minute on a loaded 2-core machine.
  test.setTimeout(budget(180_000));
  const dataDir = migratedDataDir('restart');
  // Empty key variables count as unset: the server generates its keys into the
  // data folder, as on a first `npm start`.
  const env = { TRIPLINE_DATA_DIR: dataDir, TRIPLINE_BASE_URL: `http://localhost:${port}`, TRIPLINE_SECRETS_KEY: '', TRIPLINE_AUTH_SECRET: '' };
  const password = `pw-${randomBytes(6).toString('hex')}`;
  cli(env, ['setup', '--email', 'restart@example.test', '--password-stdin', '--factory', 'persist', '--factory-name', 'Persist'], password);
  const token = cli(env, ['token', 'create', '--email', 'restart@example.test']);
  const keyBefore = fs.readFileSync(path.join(dataDir, 'secrets.key'), 'utf8');

  let server: RunningServer = await startServer('restart-1', port, env);
  try {
    await page.goto(`${server.url}/signin`);
    await page.getByLabel('Email').fill('restart@example.test');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/f\/persist\/automations$/);
  } finally {
    await server.stop();
  }
  const testClockWarning = 'TRIPLINE_TEST_CLOCK=true: any request may set the time its signature is checked at';
  expect(fs.readFileSync(server.logFile, 'utf8')).not.toContain(testClockWarning);

  // Restarted with a test-only setting on: the server says so at start.
  server = await startServer('restart-2', port, { ...env, TRIPLINE_TEST_CLOCK: 'true' });
  try {
    expect(fs.readFileSync(server.logFile, 'utf8')).toContain(testClockWarning);
    expect(fs.readFileSync(path.join(dataDir, 'secrets.key'), 'utf8')).toBe(keyBefore);
    await page.reload();
    await expect(page).toHaveURL(/\/f\/persist\/automations$/);
    await expect(page.getByText('Persist').first()).toBeVisible();
    const response = await request.get(`${server.url}/api/v1/factories`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await response.json()).toEqual({ factories: [{ slug: 'persist', name: 'Persist', role: 'admin' }], nextCursor: null, total: 1 });
  } finally {
    await server.stop();
  }
});
