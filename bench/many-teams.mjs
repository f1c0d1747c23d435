// Many teams on one instance: `node bench/many-teams.mjs` (BENCH_ONLY=postgres|pglite for one database).
//
// Fills a new database with BENCH_FACTORIES factories (default 1,000) of 20 bearer-token webhooks
// each (20,000 webhooks) and 5 automations each (5,000, each with a trigger on one of its
// webhooks), through the application's own services (bench/many-teams-fill.ts), then starts the
// production server on it (scripts/serve.mjs, as `npm start`) and measures, against the goals of
// docs/benchmarks.md:
//   - idle CPU of the server's process tree (and of PostgreSQL) over BENCH_IDLE seconds (default
//     60) after a warm-up of BENCH_WARMUP seconds (default 60): goal at most 3% of a core;
//   - resident memory (VmRSS of the server process) when idle, and after the load: goal at most
//     400 MB on PostgreSQL;
//   - ingress latency at a steady 200 deliveries a second spread over all 20,000 webhooks in turn
//     (bench/load.mjs, open loop) for BENCH_DURATION seconds (default 60): goal p99 under 50 ms;
//   - one health and rollup pass over every webhook (checkWebhookHealth, as the server's job runs
//     it), timed in a process of its own: goal under 5 s;
//   - the instance admin's page (/instance, signed in: its first and last page of factories, 100 a
//     page; /settings beside it, the same layout without a list) and the API's list of factories
//     (GET /api/v1/factories for the admin, a member of every factory: its first and its last page
//     of 100, by the cursor): goal under 200 ms (median and worst of BENCH_PAGE_RUNS, default 10,
//     after one warm-up).
// Prints one JSON object per database. Run it on a quiet machine (`farm-bench` or `flock -x`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, processTicks, run, scratchDatabase, serverNodeFlags, tsx } from './harness.mjs';

const FACTORIES = Number(process.env.BENCH_FACTORIES ?? 1000);
const WEBHOOKS = 20;
const AUTOMATIONS = 5;
const IDLE_S = Number(process.env.BENCH_IDLE ?? 60);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 60);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 60);
const PAGE_RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 10);
const port = Number(process.env.BENCH_PORT ?? 3795);
const base = `http://127.0.0.1:${port}`;
const TICK_MS = 10;
const log = (line) => console.error(`[many-teams] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * CPU ticks spent between two readings of /proc by a process and its
 * descendants, and by PostgreSQL's processes: per process, so one that ends
 * in between (a PostgreSQL backend) takes nothing away, and one that starts
 * counts from zero.
 */
function ticksBetween(before, after, rootPid) {
  let server = 0;
  let database = 0;
  for (const [pid, proc] of after) {
    const spent = proc.ticks - (before.get(pid)?.ticks ?? 0);
    let p = pid;
    for (let i = 0; p > 1 && i < 20 && p !== rootPid; i++) p = after.get(p)?.ppid ?? 0;
    if (p === rootPid) server += spent;
    else if (proc.comm === 'postgres') database += spent;
  }
  return { server, database };
}

const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

async function waitReady(child) {
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error('the server exited');
    if ((await fetch(`${base}/readyz`).catch(() => null))?.ok) return;
    await sleep(250);
  }
  throw new Error('the server did not become ready');
}

/** A session cookie for the instance admin, through the sign-in form's own endpoint. */
async function signIn(email, password) {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const cookies = csrf.headers.getSetCookie().map((c) => c.split(';')[0]);
  const { csrfToken } = await csrf.json();
  const response = await fetch(`${base}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/', json: 'true' }),
  });
  const session = response.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => /session-token=./.test(c));
  if (!session) throw new Error(`sign-in failed: ${response.status}`);
  return [...cookies, session].join('; ');
}

/** Median and worst of `runs` timed GETs after one warm-up; every answer must be 200. */
async function timeGet(pathname, headers) {
  const samples = [];
  for (let i = 0; i <= PAGE_RUNS; i++) {
    const started = performance.now();
    const response = await fetch(`${base}${pathname}`, { headers, redirect: 'manual' });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${pathname} answered ${response.status}: ${body.slice(0, 200)}`);
    if (i > 0) samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: Math.round(samples[Math.floor(samples.length / 2)]), worstMs: Math.round(samples.at(-1)) };
}

/** The cursor of the API's last page of factories, walking every page from the first (each must hold at most 100). */
async function lastFactoriesCursor(token) {
  let cursor = '';
  let seen = 0;
  for (let page = 0; page < 1000; page++) {
    const response = await fetch(`${base}/api/v1/factories${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.json();
    if (response.status !== 200 || body.factories.length > 100) throw new Error(`GET /api/v1/factories answered ${response.status} with ${body.factories?.length} factories`);
    seen += body.factories.length;
    if (!body.nextCursor) {
      if (seen !== body.total) throw new Error(`the pages held ${seen} factories of ${body.total}`);
      return cursor;
    }
    cursor = body.nextCursor;
  }
  throw new Error('GET /api/v1/factories: more than 1,000 pages');
}

async function bench(kind) {
  const scratch = kind === 'postgres' ? await scratchDatabase('many_teams', port) : null;
  const dataDir = scratch?.env.TRIPLINE_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-bench-many-teams-'));
  const env = {
    ...(scratch?.env ?? { TRIPLINE_DATA_DIR: dataDir, TRIPLINE_SECRETS_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'), TRIPLINE_AUTH_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url') }),
    DATABASE_URL: scratch?.url ?? '',
    TRIPLINE_BASE_URL: base,
    TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
    TRIPLINE_FACTORY_CREATION: 'everyone',
    PORT: String(port),
    NEXT_TELEMETRY_DISABLED: '1',
  };
  const targetsFile = path.join(dataDir, 'targets.json');
  let server;
  try {
    cli(env, ['migrate', 'deploy']);
    log(`${kind}: filling ${FACTORIES} factories × ${WEBHOOKS} webhooks and ${AUTOMATIONS} automations each`);
    const fill = JSON.parse(tsx(env, ['bench/many-teams-fill.ts', String(FACTORIES), String(WEBHOOKS), String(AUTOMATIONS), targetsFile]).split('\n').at(-1));
    const token = cli(env, ['token', 'create', '--email', 'owner@many-teams.test']);

    server = spawn(process.execPath, [...serverNodeFlags(), 'scripts/serve.mjs'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
    const startedAt = performance.now();
    await waitReady(server);
    const readyS = Math.round((performance.now() - startedAt) / 100) / 10;
    log(`${kind}: ready in ${readyS} s; warming up ${WARMUP_S} s, then idle for ${IDLE_S} s`);
    await sleep(WARMUP_S * 1000);
    const idleBefore = processTicks();
    await sleep(IDLE_S * 1000);
    const spent = ticksBetween(idleBefore, processTicks(), server.pid);
    const idle = {
      serverCpuPercent: Math.round((spent.server * TICK_MS * 1000) / (IDLE_S * 1000)) / 10,
      databaseCpuPercent: Math.round((spent.database * TICK_MS * 1000) / (IDLE_S * 1000)) / 10,
      rssMb: rssMb(server.pid),
    };
    log(`${kind}: idle ${JSON.stringify(idle)}; 200/s over ${fill.webhooks} webhooks for ${DURATION_S} s`);

    const options = { url: base, targets: JSON.parse(fs.readFileSync(targetsFile, 'utf8')), connections: 64, duration: DURATION_S, rate: 200 };
    const optionsFile = path.join(dataDir, 'load.json');
    fs.writeFileSync(optionsFile, JSON.stringify(options));
    const load = JSON.parse(run(process.execPath, ['bench/load.mjs', `@${optionsFile}`]));
    const ingress = { p50: load.latency.p50, p90: load.latency.p90, p99: load.latency.p99, max: load.latency.max, statuses: Object.fromEntries(Object.entries(load.statusCodes).map(([code, s]) => [code, s.count])), errors: load.errors, timeouts: load.timeouts, rssMbAfter: rssMb(server.pid) };
    log(`${kind}: ingress ${JSON.stringify(ingress)}; a health pass`);

    // Embedded PGlite has one writer: its pass runs once the server has stopped (below).
    let health = kind === 'postgres' ? JSON.parse(tsx(env, ['bench/many-teams-health.ts']).split('\n').at(-1)) : null;
    const cookie = await signIn('owner@many-teams.test', 'many teams password 1');
    const pages = {
      instancePage: await timeGet('/instance', { cookie }),
      // The last page of factories (an offset of 900 at 1,000), and a page with the same layout (the factory switcher) but no list.
      instanceLastPage: await timeGet(`/instance?factories=${Math.ceil(FACTORIES / 100)}`, { cookie }),
      settingsPage: await timeGet('/settings', { cookie }),
      // The API's list, 100 a page by a cursor: its first page, and its last (found by walking the cursor).
      apiFactories: await timeGet('/api/v1/factories', { authorization: `Bearer ${token}` }),
      apiFactoriesLastPage: await timeGet(`/api/v1/factories?cursor=${encodeURIComponent(await lastFactoriesCursor(token))}`, { authorization: `Bearer ${token}` }),
    };
    const rssMbEnd = rssMb(server.pid);
    if (!health) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
      health = JSON.parse(tsx(env, ['bench/many-teams-health.ts']).split('\n').at(-1));
    }
    const result = { database: kind, fill, readyS, idle, ingress, health, pages, rssMbEnd, machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`, date: new Date().toISOString() };
    console.log(JSON.stringify(result));
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    if (scratch) await scratch.drop();
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const only = process.env.BENCH_ONLY;
for (const kind of ['postgres', 'pglite']) if (!only || only === kind) await bench(kind);
