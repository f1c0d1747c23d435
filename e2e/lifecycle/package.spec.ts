import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, request as playwrightRequest, test } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { countEntries, nonPrivateModes } from '../../tests/support/file-modes';
import { rememberSecrets } from '../fixtures/secrets';

// The npm package, as someone without a clone gets it: `npm pack` (its
// prepack step builds dist/), the tarball installed with `npm install` into
// an empty folder outside the repository, then only that folder's
// `tripline` command: `tripline start` on a new embedded database (the time
// to the first page is printed), `tripline setup` and a webhook, a delivery,
// and the delivery in the log over the API; then, with argon2's native binary
// removed as on another platform, an account created and both accounts signed
// in through the WebAssembly build. Nothing of the repository is on
// the way: the folder is under the system's temporary folder, with no
// node_modules above it, and the commands run with a PATH of Node alone.
//
// TRIPLINE_PACKAGE_TARBALL=<file> tests a tarball packed before (a pack
// builds the app again, about 2 minutes).

const root = path.resolve(import.meta.dirname, '..', '..');
const port = Number(process.env.E2E_PORT_BASE ?? 3210) + 35;
const base = `http://localhost:${port}`;

/** Node and npm only: no node_modules/.bin of the repository, no tsx. */
function nodeOnlyEnv(folder: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = {} as NodeJS.ProcessEnv;
  for (const name of ['HOME', 'TMPDIR', 'LANG', 'npm_config_cache', 'npm_config_registry']) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  const nodeBin = path.dirname(process.execPath);
  return { ...env, PATH: `${path.join(folder, 'node_modules', '.bin')}:${nodeBin}:/usr/bin:/bin`, PORT: String(port), TRIPLINE_BASE_URL: base, ...extra };
}

function startServer(folder: string, logFile: string): ChildProcess {
  const log = fs.openSync(logFile, 'a');
  return spawn(path.join(folder, 'node_modules', '.bin', 'tripline'), ['start'], { cwd: folder, env: nodeOnlyEnv(folder), stdio: ['ignore', log, log] });
}

async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, budget(20_000)))]);
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
}

/** Milliseconds until `/` answers with a page (a new instance's first-run page, through its redirect). */
async function timeToFirstPage(server: ChildProcess, logFile: string, started: number): Promise<number> {
  for (;;) {
    if (server.exitCode !== null) throw new Error(`tripline start exited with ${server.exitCode}:\n${fs.readFileSync(logFile, 'utf8')}`);
    const response = await fetch(`${base}/`).catch(() => undefined);
    if (response?.ok && (await response.text()).includes('</html>')) return Date.now() - started;
    if (Date.now() - started > budget(120_000)) throw new Error(`no page after ${budget(120_000) / 1000} s:\n${fs.readFileSync(logFile, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('the npm package installs into an empty folder and serves Tripline with its own tripline command', async () => {
  test.setTimeout(budget(600_000));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-package-'));
  const logFile = path.join(root, 'test-results', 'servers', 'package.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, '');
  let server: ChildProcess | undefined;
  let npxGroup: number | undefined;
  // The umask most users' shells have (the package's processes inherit it): what they create in
  // the data folder must be private all the same (lib/platform/private-files.ts).
  const umask = process.umask(0o022);
  try {
    // 1. Pack (prepack builds dist/) and install the tarball, as a user would.
    let tarball = process.env.TRIPLINE_PACKAGE_TARBALL;
    if (!tarball) {
      const packStarted = Date.now();
      // The build's output goes to the test's output; the tarball is the one file npm writes into `work`.
      execFileSync('npm', ['pack', '--pack-destination', work], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], timeout: budget(420_000) });
      tarball = path.join(work, fs.readdirSync(work).find((name) => name.endsWith('.tgz'))!);
      console.log(`npm pack: ${((Date.now() - packStarted) / 1000).toFixed(1)} s`);
    }
    const folder = path.join(work, 'instance');
    fs.mkdirSync(folder);
    const installStarted = Date.now();
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: folder, env: nodeOnlyEnv(folder), encoding: 'utf8', timeout: budget(180_000) });
    expect(install.status, install.stderr).toBe(0);
    console.log(`npm install <tarball>: ${((Date.now() - installStarted) / 1000).toFixed(1)} s`);
    // The package runs nothing at install: npm has no script to list for review (npm 11 warns of any).
    expect(install.stderr).not.toContain('install-scripts');
    const installed = path.join(folder, 'node_modules', 'tripline');
    expect(JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).scripts?.postinstall).toBeUndefined();
    // ...and the clone keeps its own postinstall (the pack sets it aside only while packing).
    expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.postinstall).toBeTruthy();
    // What a server does not need stays out of the package.
    for (const absent of ['e2e', 'tests', 'bench', 'docs', 'app', 'lib', 'cli', 'server.ts']) expect(fs.existsSync(path.join(installed, absent)), absent).toBe(false);
    // The only package installed: the package declares no dependencies.
    expect(fs.readdirSync(path.join(folder, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['tripline']);

    // The app is one archive until the first run unpacks it (scripts/pack/unpack.mjs).
    expect(fs.readdirSync(path.join(installed, 'dist')).sort()).toEqual(['app.json', 'app.tar.gz', 'tripline.mjs', 'unpack.mjs']);

    // 2. tripline start on a folder without data: the app unpacked beside its archive, the
    // database copied from the package's migrated template, generated keys, the first page.
    const started = Date.now();
    server = startServer(folder, logFile);
    const firstPage = await timeToFirstPage(server, logFile, started);
    console.log(`tripline start: first page after ${(firstPage / 1000).toFixed(1)} s`);
    const firstLog = fs.readFileSync(logFile, 'utf8');
    expect(firstLog).toContain(`tripline: unpacked this version's app into ${path.join(installed, 'dist', 'app')}`);
    expect(firstLog).toContain('new embedded database: copied from the package’s template');
    // The template holds every migration: none runs at the first start.
    expect(firstLog).not.toContain('applied migration');
    const first = await fetch(`${base}/`, { redirect: 'manual' });
    expect(first.headers.get('location'), 'a new instance sends the visitor to its first-run page').toMatch(/\/setup$/);
    expect(fs.existsSync(path.join(folder, '.data', 'secrets.key')), 'the keys are generated in the folder’s .data').toBe(true);
    // The embedded database has one owner at a time: the commands below run while the server is stopped.
    await stop(server);
    // The data folder the first run made (the template's copy, the keys, what the database wrote
    // while serving): folders 0700, files 0600, nothing another local user can read.
    const dataFolder = path.join(folder, '.data');
    expect(countEntries(dataFolder), 'the database’s files are there to check').toBeGreaterThan(100);
    expect(nonPrivateModes(dataFolder).slice(0, 20), 'modes in .data after the first run').toEqual([]);

    // 3. tripline setup, a token and a webhook, with the package's command line (no tsx installed).
    const tripline = (args: string[], input?: string) =>
      execFileSync(path.join(folder, 'node_modules', '.bin', 'tripline'), args, { cwd: folder, env: nodeOnlyEnv(folder), input, encoding: 'utf8', timeout: budget(120_000) }).trim();
    expect(fs.existsSync(path.join(folder, 'node_modules', 'tsx'))).toBe(false);
    // Its help names the command as the user runs it, not as a clone does (npm run tripline --).
    expect(tripline(['--help'])).toMatch(/^Usage: tripline <command>/);
    expect(tripline(['webhook', '--help'])).toMatch(/^Usage: tripline webhook /);
    expect(tripline(['setup', '--email', 'pat@example.test', '--password-stdin', '--factory', 'acme', '--factory-name', 'Acme'], 'package password 1')).toContain('Created factory acme');
    const token = tripline(['token', 'create', '--email', 'pat@example.test']);
    const created = tripline(['webhook', 'create', '--factory', 'acme', '--name', 'orders']);
    const uid = /^uid: (\S+)$/m.exec(created)![1]!;
    const secret = /^secret: (\S+)$/m.exec(created)![1]!;
    rememberSecrets(token, secret, fs.readFileSync(path.join(folder, '.data', 'secrets.key'), 'utf8').trim(), fs.readFileSync(path.join(folder, '.data', 'auth.secret'), 'utf8').trim());
    // ...and what the package's command line wrote there is private too.
    expect(nonPrivateModes(dataFolder).slice(0, 20), 'modes in .data after the commands').toEqual([]);

    // 4. Started again: a delivery, then the delivery in the log.
    const restarted = Date.now();
    server = startServer(folder, logFile);
    console.log(`tripline start (existing data): first page after ${((await timeToFirstPage(server, logFile, restarted)) / 1000).toFixed(1)} s`);
    const delivery = await fetch(`${base}/webhooks/w/${uid}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'X-Service-Delivery-Id': 'package-1' },
      body: JSON.stringify({ order: 1 }),
    });
    expect(delivery.status, await delivery.clone().text()).toBe(202);
    const log = await fetch(`${base}/api/v1/factories/acme/webhooks/${uid}/deliveries`, { headers: { Authorization: `Bearer ${token}` } });
    expect(log.status).toBe(200);
    const { deliveries } = (await log.json()) as { deliveries: { deliveryId: string; status: string }[] };
    expect(deliveries.map((entry) => [entry.deliveryId, entry.status])).toEqual([['package-1', 'accepted']]);

    // 5. Another platform: without argon2's native binary (removed here, as on a Mac or an ARM
    // board), passwords are hashed and checked by its WebAssembly build, which the package carries.
    await stop(server);
    const bindings = path.join(installed, 'dist', 'app', 'node_modules', '@node-rs');
    const native = fs.readdirSync(bindings).filter((name) => name.startsWith('argon2-') && name !== 'argon2-wasm32-wasi');
    expect(native, 'the native binary of the platform it was packed on').toEqual(['argon2-linux-x64-gnu']);
    fs.rmSync(path.join(bindings, native[0]!), { recursive: true });
    expect(tripline(['user', 'create', '--email', 'wasm@example.test', '--password-stdin'], 'wasm password 12')).toContain('wasm@example.test');
    server = startServer(folder, logFile);
    await timeToFirstPage(server, logFile, Date.now());
    const browser = await playwrightRequest.newContext({ baseURL: base });
    try {
      const { csrfToken } = (await (await browser.get('/api/auth/csrf')).json()) as { csrfToken: string };
      // The hash setup made with the native binary, and the one made without it, both check.
      for (const [email, password] of [['pat@example.test', 'package password 1'], ['wasm@example.test', 'wasm password 12']]) {
        const signIn = await browser.post('/api/auth/callback/credentials', { form: { csrfToken, email: email!, password: password!, callbackUrl: '/', json: 'true' }, maxRedirects: 0 });
        const cookies = signIn.headersArray().filter((header) => header.name.toLowerCase() === 'set-cookie').map((header) => header.value);
        expect(cookies.some((cookie) => /session-token=[^;]/.test(cookie)), `${email} signs in`).toBe(true);
      }
    } finally {
      await browser.dispose();
    }
    await stop(server);

    // 6. npx <tarball> start in another empty folder, with an empty npm cache: npx installs
    // the package into its cache, then serves a new instance.
    const npxFolder = path.join(work, 'npx');
    fs.mkdirSync(npxFolder);
    const npxEnv = nodeOnlyEnv(npxFolder, { npm_config_cache: path.join(work, 'npm-cache'), npm_config_yes: 'true' });
    const npxStarted = Date.now();
    const npxLog = fs.openSync(logFile, 'a');
    // Its own process group: npx does not pass a signal on to the command it runs.
    // (npx takes an absolute path for a command to run: file: makes it a package.)
    server = spawn('npx', [`file:${tarball}`, 'start'], { cwd: npxFolder, env: npxEnv, stdio: ['ignore', npxLog, npxLog], detached: true });
    npxGroup = server.pid;
    console.log(`npx <tarball> start: first page after ${((await timeToFirstPage(server, logFile, npxStarted)) / 1000).toFixed(1)} s`);
    expect(fs.existsSync(path.join(npxFolder, '.data', 'secrets.key')), 'the data folder is the one npx ran in').toBe(true);
    process.kill(-server.pid!, 'SIGTERM');
    await stop(server);
  } finally {
    if (server) await stop(server);
    if (npxGroup) {
      try {
        process.kill(-npxGroup, 'SIGKILL');
      } catch {
        // The group has exited.
      }
    }
    fs.rmSync(work, { recursive: true, force: true });
    process.umask(umask);
  }
});
