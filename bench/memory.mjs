// Memory benchmark: `node bench/memory.mjs`.
//
// Starts the server on embedded PGlite and on PostgreSQL, and prints its
// resident memory (RSS of the one server process, every thread included:
// PGlite's, the run workers'):
//   idle   after start (migrations applied, ready) and BENCH_IDLE seconds of nothing
//   load   the highest and last RSS while a steady BENCH_RATE deliveries/s
//          (bench/load.mjs, an open loop over 20 webhooks) runs for BENCH_LOAD
//          seconds, with the server's own jobs (health every 30 s, the Backtest
//          copies every 5 s) and one caller looping on Backtest, one call every 2 s
//   after  BENCH_IDLE seconds after the load
// and the delivery latency and statuses during the load.
//
// Settings (environment): BENCH_ONLY (pglite|postgres), BENCH_LOAD (seconds,
// default 600), BENCH_RATE (default 200), BENCH_IDLE (seconds, default 20),
// BENCH_SERVER (entry: scripts/serve.mjs on the build in NEXT_DIST_DIR, as
// `npm start` serves it, the default; package: dist/tripline.mjs start, the npm
// package's server, built by `node scripts/pack.mjs`), BENCH_NODE_OPTIONS
// (flags for the server's Node, e.g. --max-semi-space-size=4),
// BENCH_DATABASE_URL (default TEST_DATABASE_URL, then the local server),
// BENCH_BACKTEST=0 (no Backtest caller), BENCH_SERVER_LOG (a file for the
// server's log). RSS is logged every 30 s of the load.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, root, scratchDatabase, serverNodeFlags } from './harness.mjs';

const loadSeconds = Number(process.env.BENCH_LOAD ?? 600);
const rate = Number(process.env.BENCH_RATE ?? 200);
const idleSeconds = Number(process.env.BENCH_IDLE ?? 20);
const port = Number(process.env.BENCH_PORT ?? 3795);
const serverKind = process.env.BENCH_SERVER ?? 'entry';
const WEBHOOKS = 20;
const log = (line) => console.error(`[memory] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (kb) => Math.round(kb / 1024);

function rssKb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)[1]);
}

async function waitReady(base, child) {
  for (let i = 0; i < 480; i++) {
    if (child.exitCode !== null) throw new Error('the server exited');
    if ((await fetch(`${base}/readyz`).catch(() => undefined))?.ok) return;
    await sleep(250);
  }
  throw new Error('the server did not start');
}

function startServer(env) {
  const command = serverKind === 'package' ? [path.join(root, 'dist', 'tripline.mjs'), 'start'] : [path.join(root, 'scripts', 'serve.mjs')];
  const flags = serverNodeFlags();
  // BENCH_SERVER_LOG: a file for the server's log (its JSON lines), else dropped.
  const out = process.env.BENCH_SERVER_LOG ? fs.openSync(process.env.BENCH_SERVER_LOG, 'a') : 'ignore';
  return spawn(process.execPath, [...flags, ...command], { env: { ...process.env, ...env }, stdio: ['ignore', out, 'inherit'] });
}

async function benchDatabase(kind) {
  const scratch = await scratchDatabase(`memory_${kind}`, port);
  const env = { ...scratch.env, PORT: String(port), TRIPLINE_DELIVERY_RATE_LIMIT: '1000000' };
  if (kind === 'pglite') env.DATABASE_URL = '';
  const base = `http://localhost:${port}`;
  log(`${kind}: seeding through the CLI`);
  cli(env, ['setup', '--email', 'memory@example.test', '--password-stdin', '--factory', 'memory'], 'memory bench password');
  const token = cli(env, ['token', 'create', '--email', 'memory@example.test']);
  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

  const server = startServer(env);
  try {
    await waitReady(base, server);
    const targets = [];
    for (let w = 0; w < WEBHOOKS; w++) {
      const response = await fetch(`${base}/api/v1/factories/memory/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `hook-${w}` }) });
      const body = await response.json();
      if (response.status !== 201) throw new Error(JSON.stringify(body));
      targets.push({ path: new URL(body.ingressUrl).pathname, authorization: `Bearer ${body.secret}`, uid: body.webhook.uid });
    }
    // An automation on the first webhook: accepted deliveries there start runs (none executes: no executor).
    await fetch(`${base}/api/v1/factories/memory/automations`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'bench', prompt: 'Bench.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [targets[0].uid] } }] }),
    });
    await sleep(idleSeconds * 1000);
    const idle = rssKb(server.pid);
    log(`${kind}: idle ${mb(idle)} MB`);

    // The load, the Backtest caller, and RSS every second.
    let stop = false;
    let peak = 0;
    const started = Date.now();
    const sampler = (async () => {
      for (let second = 1; !stop; second++) {
        const now = rssKb(server.pid);
        peak = Math.max(peak, now);
        if (second % 30 === 0) log(`${kind}: ${Math.round((Date.now() - started) / 1000)} s into the load, ${mb(now)} MB`);
        await sleep(1000);
      }
    })();
    const backtests = { answered: 0, other: {} };
    const backtestBody = JSON.stringify({ trigger: { provider: 'webhook', event: 'received', filter: { webhook_ids: [targets[0].uid], payload: { event: 'bench' } } } });
    const caller = (async () => {
      while (!stop && process.env.BENCH_BACKTEST !== '0') {
        const response = await fetch(`${base}/api/v1/factories/memory/automations/backtest`, { method: 'POST', headers: auth, body: backtestBody }).catch(() => undefined);
        await response?.arrayBuffer();
        if (response?.status === 200) backtests.answered++;
        else backtests.other[response?.status ?? 'error'] = (backtests.other[response?.status ?? 'error'] ?? 0) + 1;
        await sleep(2000);
      }
    })();
    log(`${kind}: ${rate} deliveries/s for ${loadSeconds} s`);
    const loaded = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(root, 'bench', 'load.mjs'), JSON.stringify({ url: base, targets, connections: 32, duration: loadSeconds, rate })], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load.mjs exited with ${code}`))));
    });
    const end = rssKb(server.pid);
    stop = true;
    await Promise.all([sampler, caller]);
    await sleep(idleSeconds * 1000);
    const after = rssKb(server.pid);
    return {
      kind,
      idleMb: mb(idle),
      loadPeakMb: mb(Math.max(peak, end)),
      loadEndMb: mb(end),
      afterMb: mb(after),
      deliveries: loaded.requests,
      statusCodes: Object.fromEntries(Object.entries(loaded.statusCodes ?? {}).map(([code, stats]) => [code, stats.count])),
      p99: loaded.latency?.p99,
      backtests,
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once('exit', resolve)));
    await scratch.drop();
  }
}

const kinds = process.env.BENCH_ONLY ? [process.env.BENCH_ONLY] : ['pglite', 'postgres'];
const results = [];
for (const kind of kinds) results.push(await benchDatabase(kind));
const [load1] = os.loadavg();
console.log(JSON.stringify({ at: new Date().toISOString(), server: serverKind, loadAverage: Number(load1.toFixed(2)), node: process.version, nodeOptions: process.env.BENCH_NODE_OPTIONS ?? '', rate, loadSeconds, results }, null, 2));
