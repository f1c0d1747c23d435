import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { budget } from '../scripts/speed.mjs';
// The command line runs bundled (tests/support/bundle.ts): cliArgs gives node's arguments.
import { cliArgs } from '../tests/support/bundle';
import { createPostgresDatabase } from '../tests/support/postgres';
import { rememberSecrets } from './fixtures/secrets';

// Starting and seeding real Tripline servers for the end-to-end tests.

const root = path.resolve(import.meta.dirname, '..');

export type ServerEnv = Record<string, string>;

/** Where the specs' data folders go; kept after a run, for a failure's post-mortem. */
const DATA_DIRS = path.join(root, 'test-results', 'e2e-data');

/**
 * A new data folder for a spec, holding a migrated embedded database: a copy
 * of one that `tripline migrate deploy` made once per run (global-setup.ts
 * makes it and its workers inherit E2E_MIGRATED_PGLITE). A new
 * database costs PGlite's initdb and every migration (4-5 CPU-s); a copy, a
 * tenth of a second. Only the database is copied: each folder's keys are its
 * own (generated, or given in its environment). For specs whose subject is
 * not a new database: the browser server, the README's quick start and the
 * npm package start on empty folders, as a new instance does.
 */
export function migratedDataDir(name: string): string {
  let migrated = process.env.E2E_MIGRATED_PGLITE;
  if (!migrated || !fs.existsSync(path.join(migrated, 'PG_VERSION'))) {
    const template = path.join(DATA_DIRS, `migrated-${process.pid}`);
    fs.rmSync(template, { recursive: true, force: true });
    cli({ TRIPLINE_DATA_DIR: template, TRIPLINE_SECRETS_KEY: '', TRIPLINE_AUTH_SECRET: '', DATABASE_URL: '' }, ['migrate', 'deploy']);
    migrated = path.join(template, 'pglite');
    process.env.E2E_MIGRATED_PGLITE = migrated;
  }
  const dataDir = newDataDir(name);
  fs.cpSync(migrated, path.join(dataDir, 'pglite'), { recursive: true });
  return dataDir;
}

/** A new data folder's path for a spec (not created): on PostgreSQL it holds only the server's own files. */
export function newDataDir(name: string): string {
  return path.join(DATA_DIRS, `${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`);
}

/**
 * A lifecycle spec's database, by kind: on the embedded database, a data
 * folder holding a migrated one (migratedDataDir); on PostgreSQL, a new data
 * folder and a database of its own on TEST_DATABASE_URL's server, which `drop`
 * removes. `env` sets DATABASE_URL on PostgreSQL (spread it into serverEnv's
 * settings); `databaseUrl` is for queryDatabase.
 */
export async function lifecycleDatabase(
  kind: 'pglite' | 'postgres',
  name: string,
): Promise<{ dataDir: string; env: Record<string, string>; databaseUrl?: string; drop: () => Promise<void> }> {
  if (kind === 'pglite') return { dataDir: migratedDataDir(`${name}-pglite`), env: {}, drop: async () => {} };
  const database = await createPostgresDatabase(`tripline_e2e_${name.replaceAll('-', '_')}`);
  return { dataDir: newDataDir(`${name}-postgres`), env: { DATABASE_URL: database.url }, databaseUrl: database.url, drop: database.drop };
}

/**
 * The environment of a server a spec starts itself (and of the CLI on its
 * folder): its data folder, its base URL, keys of its own, then `extra`.
 */
export function serverEnv(dataDir: string, baseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TRIPLINE_DATA_DIR: dataDir,
    TRIPLINE_BASE_URL: baseUrl,
    TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
    TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
    ...extra,
  };
}

function cliResult(args: string[], status: number | null, stdout: string, stderr: string): string {
  if (status !== 0) throw new Error(`tripline ${args.join(' ')} failed (${status}):\n${stderr}\n${stdout}`);
  return stdout.trim();
}

/** Runs the tripline CLI against a server's database (before that server starts, for PGlite). */
export function cli(env: ServerEnv, args: string[], input?: string): string {
  const result = spawnSync(process.execPath, cliArgs(args), { cwd: root, env: { ...process.env, ...env }, input, encoding: 'utf8' });
  return cliResult(args, result.status, result.stdout, result.stderr);
}

/** cli() without blocking: global-setup.ts seeds its databases side by side. */
export function cliAsync(env: ServerEnv, args: string[], input?: string): Promise<string> {
  const child = spawn(process.execPath, cliArgs(args), { cwd: root, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      try {
        resolve(cliResult(args, status, stdout, stderr));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * An operator's first steps through the CLI, before the server starts: an
 * account that owns `factory`, an API token of it, and a bearer webhook named
 * `webhook`. The secrets are remembered for the logs check (e2e/logs).
 */
export function seedWebhook(env: ServerEnv, factory: string, webhook: string): { token: string; uid: string; secret: string } {
  const email = `${factory}@example.test`;
  cli(env, ['setup', '--email', email, '--password-stdin', '--factory', factory, '--factory-name', factory], 'correct horse battery');
  const token = cli(env, ['token', 'create', '--email', email]);
  const created = cli(env, ['webhook', 'create', '--factory', factory, '--name', webhook]);
  const uid = /^uid: (\S+)$/m.exec(created)![1]!;
  const secret = /^secret: (\S+)$/m.exec(created)![1]!;
  rememberSecrets(token, secret, env.TRIPLINE_SECRETS_KEY ?? '', env.TRIPLINE_AUTH_SECRET ?? '');
  return { token, uid, secret };
}

/**
 * Reads a stopped (or killed) server's database directly: its PostgreSQL
 * database when `databaseUrl` is given, else the embedded one in `dataDir`.
 */
export async function queryDatabase<T extends Record<string, unknown>>(target: { databaseUrl?: string; dataDir: string }, query: string): Promise<T[]> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      return (await client.query<T>(query)).rows;
    } finally {
      await client.end();
    }
  }
  const embedded = new PGlite(path.join(target.dataDir, 'pglite'));
  try {
    return (await embedded.query<T>(query)).rows;
  } finally {
    await embedded.close();
  }
}

export type RunningServer = { url: string; process: ChildProcess; logFile: string; stop: () => Promise<void> };

export async function startServer(name: string, port: number, env: ServerEnv): Promise<RunningServer> {
  const logDir = path.join(root, 'test-results', 'servers');
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const log = fs.openSync(logFile, 'w');
  // The server entry, as `npm start` runs it (without the build check).
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'serve.mjs')], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', log, log],
  });
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + budget(60_000);
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`Server ${name} exited with ${child.exitCode}:\n${fs.readFileSync(logFile, 'utf8')}`);
    }
    try {
      // Ready: migrations applied, keys checked, workers started.
      const response = await fetch(`${url}/readyz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`Server ${name} did not start:\n${fs.readFileSync(logFile, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    process: child,
    logFile,
    stop: () =>
      new Promise<void>((resolve) => {
        // Exited, or killed by a signal (a SIGKILLed server has no exit code).
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), budget(10_000)).unref();
      }),
  };
}
