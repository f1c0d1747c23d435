// What the bench scripts that fill a scratch PostgreSQL database share: the
// project root as working directory, the server to create databases on, a
// production build, the CLI, and a scratch database with the environment a
// server started on it needs. Settings: BENCH_DATABASE_URL (default
// TEST_DATABASE_URL, then the local server), NEXT_DIST_DIR.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
export const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const distDir = process.env.NEXT_DIST_DIR || '.next';

/** BENCH_NODE_OPTIONS: flags for the server's Node (e.g. --max-semi-space-size=32, V8's own size). */
export const serverNodeFlags = () => (process.env.BENCH_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean);

export function run(command, args, env = {}, input) {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}\n${result.stdout}`);
  return result.stdout.trim();
}

/** A TypeScript file of the project under tsx, as the CLI runs (react-server conditions). */
export const tsx = (env, args, input) => run(process.execPath, ['--conditions=react-server', '--import', 'tsx', ...args], env, input);
export const cli = (env, args, input) => tsx(env, ['cli/tripline.ts', ...args], input);

export function ensureBuild() {
  if (!fs.existsSync(path.join(distDir, 'BUILD_ID'))) run(process.execPath, ['node_modules/next/dist/bin/next', 'build']);
}

/** Waits for a server's `/healthz` to answer 200: up to `tries` looks, 250 ms apart. */
export async function waitForHealthz(origin, tries = 240) {
  for (let i = 0; i < tries; i++) {
    try {
      if ((await fetch(`${origin}/healthz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * A new database named tripline_bench_<label>_<time> and a data folder, with
 * the environment a server or the CLI on them needs (fresh keys); `drop`
 * removes both.
 */
export async function scratchDatabase(label, port) {
  const name = `tripline_bench_${label}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `tripline-bench-${label}-`));
  const env = {
    DATABASE_URL: url.toString(),
    TRIPLINE_DATA_DIR: dataDir,
    TRIPLINE_BASE_URL: `http://localhost:${port}`,
    TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
    TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
    NEXT_TELEMETRY_DISABLED: '1',
  };
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { url: url.toString(), env, drop };
}

/** Every process's CPU ticks (user + system, 10 ms each), name and parent, read from /proc. */
export function processTicks() {
  const ticks = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      ticks.set(Number(entry), { comm: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks;
}

/** The q-quantile of merged { ms: count } histograms (bench/load.mjs's): the percentile of all their requests together; null without any. */
export function quantile(histograms, q) {
  const counts = new Map();
  for (const histogram of histograms) for (const [ms, n] of Object.entries(histogram ?? {})) counts.set(Number(ms), (counts.get(Number(ms)) ?? 0) + n);
  const sorted = [...counts].sort(([a], [b]) => a - b);
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  if (!total) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const [ms, n] of sorted) if ((seen += n) >= rank) return ms;
  return sorted.at(-1)[0];
}
