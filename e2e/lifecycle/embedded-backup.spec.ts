import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { cliArgs } from '../../tests/support/bundle';
import { cli, migratedDataDir, startServer, type RunningServer, type ServerEnv } from '../servers';

// The embedded database's operations with real servers over HTTP: its lock
// against a second process, a restart right after SIGKILL, and `tripline
// backup` of a running server restored into a wiped data folder, after which
// the webhooks accept deliveries with their old secrets (the bearer token, and
// a GitHub signature whose secret is stored encrypted with secrets.key).

const root = path.resolve(import.meta.dirname, '..', '..');
const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 20;

// Empty key variables count as unset: the server generates its keys into the
// data folder, which is what a backup must carry.
function envFor(dataDir: string): ServerEnv {
  return { TRIPLINE_DATA_DIR: dataDir, TRIPLINE_BASE_URL: `http://localhost:${port}`, TRIPLINE_SECRETS_KEY: '', TRIPLINE_AUTH_SECRET: '', DATABASE_URL: '' };
}

/** Runs the CLI and returns its exit status and output (servers.ts's cli() throws on failure). */
function tripline(env: ServerEnv, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, cliArgs(args), {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

async function deliver(request: APIRequestContext, url: string, headers: Record<string, string>, body: string): Promise<number> {
  return (await request.post(url, { data: body, headers: { 'content-type': 'application/json', ...headers } })).status();
}

function githubSignature(secret: string, body: string): Record<string, string> {
  return { 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
}

test('a backup of a running server restores into a wiped data folder, and the webhooks keep their secrets', async ({ request }) => {
  test.setTimeout(budget(240_000));
  const dataDir = migratedDataDir('backup');
  const env = envFor(dataDir);
  const backupFile = path.join(dataDir, '..', `${path.basename(dataDir)}.trlbackup`);
  cli(env, ['setup', '--email', 'ops@example.test', '--password-stdin', '--factory', 'ops'], `pw-${randomBytes(6).toString('hex')}`);
  const token = cli(env, ['token', 'create', '--email', 'ops@example.test']);
  const auth = { Authorization: `Bearer ${token}` };

  let server: RunningServer = await startServer('backup-1', port, env);
  let bearer: { url: string; secret: string };
  const githubSecret = `gh-${randomBytes(8).toString('hex')}`;
  let githubUrl: string;
  try {
    const created = await request.post(`${server.url}/api/v1/factories/ops/webhooks`, { headers: auth, data: { name: 'deploys' } });
    expect(created.status()).toBe(201);
    const body = (await created.json()) as { secret: string; ingressUrl: string };
    bearer = { url: body.ingressUrl, secret: body.secret };
    const signed = await request.post(`${server.url}/api/v1/factories/ops/webhooks`, {
      headers: auth,
      data: { name: 'github', authMode: 'signature', signatureScheme: 'github', providerSecret: githubSecret },
    });
    expect(signed.status()).toBe(201);
    githubUrl = ((await signed.json()) as { ingressUrl: string }).ingressUrl;
    expect(await deliver(request, bearer.url, { Authorization: `Bearer ${bearer.secret}` }, '{"n":1}')).toBe(202);
    expect(await deliver(request, githubUrl, githubSignature(githubSecret, '{"n":1}'), '{"n":1}')).toBe(202);

    // The lock: a CLI command that opens the database is refused while the server runs, naming it.
    const refused = tripline(env, ['webhook', 'list', '--factory', 'ops']);
    expect(refused.status).toBe(1);
    expect(refused.output).toContain(`The embedded database in ${path.join(dataDir, 'pglite')} is in use by process ${server.process.pid} (tripline server, since`);
    expect(refused.output).toContain('Stop that process first');

    // Online backup: the server makes the copy.
    const backup = tripline(env, ['backup', backupFile]);
    expect(backup.output).toContain(`from the running process ${server.process.pid} (tripline server`);
    expect(backup.output).toContain('Included: secrets.key and auth.secret. Anyone who has this file can decrypt');
    expect(backup.status).toBe(0);
    expect(fs.statSync(backupFile).mode & 0o777).toBe(0o600);

    // Restore refuses to replace a running instance's database.
    const busy = tripline(env, ['restore', backupFile]);
    expect(busy.status).toBe(1);
    expect(busy.output).toContain(`Refusing to restore: the embedded database in ${path.join(dataDir, 'pglite')} is in use by process ${server.process.pid}`);

    // A delivery after the backup is not in it.
    expect(await deliver(request, bearer.url, { Authorization: `Bearer ${bearer.secret}` }, '{"n":2}')).toBe(202);
  } finally {
    await server.stop();
  }

  // Lose everything: database and generated keys.
  fs.rmSync(dataDir, { recursive: true, force: true });

  const notBackup = path.join(root, 'package.json');
  const wrong = tripline(env, ['restore', notBackup]);
  expect(wrong.status).toBe(1);
  expect(wrong.output).toContain(`${notBackup} is not a Tripline backup`);
  const truncatedFile = `${backupFile}.truncated`;
  fs.writeFileSync(truncatedFile, fs.readFileSync(backupFile).subarray(0, 100_000));
  const truncated = tripline(env, ['restore', truncatedFile]);
  expect(truncated.status).toBe(1);
  expect(truncated.output).toContain('is not a Tripline backup');
  expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(false);

  const restored = tripline(env, ['restore', backupFile]);
  expect(restored.output).toContain(`Restored the embedded database in ${path.join(dataDir, 'pglite')}`);
  expect(restored.output).toContain('Keys: secrets.key restored from the backup.');
  expect(restored.output).not.toContain('Warning');
  expect(restored.status).toBe(0);

  server = await startServer('backup-2', port, env);
  try {
    expect(await deliver(request, bearer.url, { Authorization: `Bearer ${bearer.secret}` }, '{"n":3}')).toBe(202);
    expect(await deliver(request, bearer.url, { Authorization: 'Bearer wrong' }, '{"n":4}')).toBe(401);
    // The provider secret is stored encrypted: this verifies only if secrets.key came back.
    expect(await deliver(request, githubUrl, githubSignature(githubSecret, '{"n":3}'), '{"n":3}')).toBe(202);
    const webhooks = await request.get(`${server.url}/api/v1/factories/ops/webhooks`, { headers: auth });
    expect(webhooks.status()).toBe(200);
    const uid = new URL(bearer.url).pathname.split('/').pop();
    const log = await request.get(`${server.url}/api/v1/factories/ops/webhooks/${uid}/deliveries`, { headers: auth });
    const entries = ((await log.json()) as { deliveries: Array<{ status: string }> }).deliveries;
    // n=1 from before the backup, n=3 and the refused n=4 after the restore; n=2 came after the backup.
    expect(entries.map((entry) => entry.status)).toEqual(['rejected_auth', 'accepted', 'accepted']);
  } finally {
    await server.stop();
  }
});

test('restore without the keys says the server will refuse to start', async () => {
  test.setTimeout(budget(120_000));
  const dataDir = migratedDataDir('backup-nokeys');
  const env = envFor(dataDir);
  const backupFile = `${dataDir}.trlbackup`;
  cli(env, ['setup', '--email', 'ops@example.test', '--password-stdin', '--factory', 'ops'], `pw-${randomBytes(6).toString('hex')}`);
  // Offline: no server has the database open.
  const backup = tripline(env, ['backup', backupFile, '--no-keys']);
  expect(backup.status).toBe(0);
  expect(backup.output).toContain('with no server running');
  expect(backup.output).toContain("secrets.key is NOT in the backup (--no-keys). Without that key (fingerprint ");
  expect(backup.output).toContain("this backup's team secrets and webhook credentials cannot be decrypted");

  fs.rmSync(dataDir, { recursive: true, force: true });
  const restored = tripline(env, ['restore', backupFile]);
  expect(restored.status).toBe(0);
  expect(restored.output).toContain('Warning: this database was used with a secrets.key of fingerprint');
  expect(restored.output).toContain('there is no secrets.key and TRIPLINE_SECRETS_KEY is unset');
  expect(restored.output).toContain('Fix the keys above, then start the server.');
});

test('a server starts again right after it was killed with SIGKILL', async ({ request }) => {
  test.setTimeout(budget(120_000));
  const env = envFor(migratedDataDir('sigkill'));
  const first = await startServer('sigkill-1', port, env);
  first.process.kill('SIGKILL');
  // No wait for the killed process to be reaped.
  const second = await startServer('sigkill-2', port, env);
  try {
    expect((await request.get(`${second.url}/healthz`)).status()).toBe(200);
    expect(fs.readFileSync(second.logFile, 'utf8')).toContain('database ready');
  } finally {
    await second.stop();
  }
});
