// Ingress benchmark: `npm run bench` (or `node bench/ingress.mjs`).
//
// Starts the built server on PostgreSQL and on embedded PGlite, creates many
// webhooks, and drives POST /webhooks/w/<uid> from a second process
// (bench/load.mjs: autocannon at full load, an open loop at a steady rate).
// For each database it prints accepted deliveries per second with p50/p99
// latency at full load, p99 at a steady 200 deliveries/s spread over all
// webhooks, and the same full-load figures for
// two baselines measured in the same run, each as a ratio: the trivial
// /healthz route handler (a GET), and the ingress route's own floor (the same
// POST and body to a UID the route refuses by its shape, 404 with no read).
// The delivery rate limit is raised through TRIPLINE_DELIVERY_RATE_LIMIT,
// as an operator would, not in code.
//
// Settings (environment): BENCH_DATABASE_URL (a PostgreSQL server where a
// database may be created; default TEST_DATABASE_URL or
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_DURATION (seconds per
// run, default 15), BENCH_CONNECTIONS (default 32), BENCH_ONLY (postgres|pglite),
// BENCH_PROFILE (a folder for a CPU profile of the server), BENCH_NODE_OPTIONS
// (flags for the server's Node), BENCH_SERVER
// (entry: server.ts, as `npm start` runs it, the default; next: `next start`).
//
// BENCH_TRACING=1: the server exports OpenTelemetry traces (docs/tracing.md) to
// an OTLP/HTTP sink in its own process (bench/otlp-sink.mjs); compare with a
// run without it for the tracing overhead.
//
// BENCH_MODE=flood (`node bench/ingress.mjs` with BENCH_MODE=flood): valid
// deliveries to one webhook, first alone, then while a second load process
// (another client) floods the same webhook with wrong bearer tokens. Prints
// accepted deliveries per second in both runs and what the flood got. The
// server runs through the server entry, so the client address (and with it
// the failed-authentication budget) is the socket's.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

import { adminUrl, cli, distDir, processTicks, root, run, serverNodeFlags } from './harness.mjs';

process.chdir(root);
const duration = Number(process.env.BENCH_DURATION ?? 15);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const port = Number(process.env.BENCH_PORT ?? 3790);
const FACTORIES = 5;
const WEBHOOKS_PER_FACTORY = 20;
const mode = process.env.BENCH_MODE ?? 'throughput';
const serverKind = process.env.BENCH_SERVER ?? 'entry';

const log = (line) => console.error(`[bench] ${line}`);

async function waitFor(url, child) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error('server exited');
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('server did not start');
}

function load(options) {
  const result = run(process.execPath, ['bench/load.mjs', JSON.stringify(options)]);
  return JSON.parse(result);
}

/** bench/load.mjs as a child process that runs alongside others. */
function loadAsync(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/load.mjs', JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load.mjs exited with ${code}`))));
  });
}

// Where the two cores went during a run: CPU time of every process, read from
// /proc before and after, split into the server (its process and children),
// PostgreSQL's processes, and the rest (the load generator, this script).
const TICK_MS = 10; // USER_HZ is 100 on Linux
const cpuTicks = processTicks;
// The load generator runs as a child of this process and has exited when a run
// returns: its CPU time is in this process's cutime and cstime.
function childTicks() {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}
function measured(serverPid, work) {
  const before = cpuTicks();
  const childrenBefore = childTicks();
  const result = work();
  const after = cpuTicks();
  const ms = { server: 0, database: 0, other: (childTicks() - childrenBefore) * TICK_MS };
  const inServer = (pid) => {
    for (let p = pid, i = 0; p > 1 && i < 20; p = after.get(p)?.ppid ?? 0, i++) if (p === serverPid) return true;
    return false;
  };
  for (const [pid, now] of after) {
    const spent = (now.ticks - (before.get(pid)?.ticks ?? 0)) * TICK_MS;
    if (inServer(pid)) ms.server += spent;
    else if (now.comm === 'postgres') ms.database += spent;
    else ms.other += spent;
  }
  return { ...result, cpuMs: ms };
}

const codes = (result) => Object.fromEntries(Object.entries(result.statusCodes ?? {}).map(([code, stats]) => [code, stats.count]));

/** Valid deliveries to one webhook, alone and under a flood of wrong tokens to the same webhook. */
async function flood(base, target) {
  const half = Math.max(1, Math.floor(connections / 2));
  log(`flood: warming up`);
  load({ url: base, targets: [target], connections: half, duration: 3 });
  log(`flood: valid deliveries alone, ${half} connections, ${duration} s`);
  const alone = load({ url: base, targets: [target], connections: half, duration });
  log(`flood: valid deliveries (${half} connections) while another client floods wrong tokens (${half} connections), ${duration} s`);
  const bad = { ...target, authorization: 'Bearer wrong-token-wrong-token-wrong-token-000' };
  const [valid, attack] = await Promise.all([
    loadAsync({ url: base, targets: [target], connections: half, duration }),
    loadAsync({ url: base, targets: [bad], connections: half, duration }),
  ]);
  const accepted = (result) => Math.round((result.statusCodes?.['202']?.count ?? 0) / result.duration);
  return {
    alone: { acceptedPerSecond: accepted(alone), p50: alone.latency.p50, p99: alone.latency.p99, statuses: codes(alone) },
    underFlood: { acceptedPerSecond: accepted(valid), p50: valid.latency.p50, p99: valid.latency.p99, statuses: codes(valid) },
    flood: { perSecond: Math.round(attack.requests / attack.duration), statuses: codes(attack), errors: attack.errors + attack.timeouts },
  };
}

async function benchDatabase(kind) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `tripline-bench-${kind}-`));
  const env = {
    TRIPLINE_DATA_DIR: dataDir,
    TRIPLINE_BASE_URL: `http://localhost:${port}`,
    TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
    TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
    TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
    PORT: String(port),
    NEXT_TELEMETRY_DISABLED: '1',
    DATABASE_URL: '',
  };
  let dropDatabase = async () => {};
  if (kind === 'postgres') {
    const name = `tripline_bench_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    };
  }

  let stopSink = async () => null;
  if (process.env.BENCH_TRACING === '1') {
    const sink = spawn(process.execPath, ['bench/otlp-sink.mjs'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    sink.stdout.on('data', (chunk) => (output += chunk));
    while (!output.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 50));
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${output.trim()}/v1/traces`;
    env.OTEL_SERVICE_NAME = 'tripline-bench';
    stopSink = async () => {
      sink.kill('SIGTERM');
      await new Promise((resolve) => sink.once('exit', resolve));
      return JSON.parse(output.trim().split('\n').at(-1));
    };
    log(`${kind}: tracing on, exporting to ${env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}`);
  }

  log(`${kind}: seeding ${FACTORIES} factories through the CLI`);
  for (let f = 1; f <= FACTORIES; f++) {
    cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', `bench-${f}`], 'bench password 123');
  }
  const token = cli(env, ['token', 'create', '--email', 'bench@example.test']);

  // BENCH_PROFILE=<dir>: write a V8 CPU profile of the server (read it with bench/profile-summary.mjs).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROFILE)}`] : [];
  // The production entry (server.ts), as `npm start` runs it; BENCH_SERVER=next for `next start`.
  const command = serverKind === 'entry' ? ['scripts/serve.mjs'] : ['node_modules/next/dist/bin/next', 'start', '-p', String(port)];
  const flags = serverNodeFlags();
  const server = spawn(process.execPath, [...flags, ...profile, ...command], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const base = `http://localhost:${port}`;
    await waitFor(`${base}/healthz`, server);
    log(`${kind}: creating ${FACTORIES * WEBHOOKS_PER_FACTORY} webhooks through the API`);
    const targets = [];
    for (let f = 1; f <= FACTORIES; f++) {
      for (let w = 0; w < WEBHOOKS_PER_FACTORY; w++) {
        const response = await fetch(`${base}/api/v1/factories/bench-${f}/webhooks`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `hook-${w}` }),
        });
        const body = await response.json();
        if (response.status !== 201) throw new Error(JSON.stringify(body));
        targets.push({ path: new URL(body.ingressUrl).pathname, authorization: `Bearer ${body.secret}` });
      }
    }

    if (mode === 'flood') {
      const result = await flood(base, targets[0]);
      // How the log looks afterwards: the flood's entries and its refused summaries.
      const deliveries = await fetch(`${base}/api/v1/factories/bench-1/webhooks/${targets[0].path.split('/').pop()}/deliveries?status=refused&limit=100`, {
        headers: { Authorization: `Bearer ${token}` },
      }).then((r) => r.json());
      const refusedLogged = deliveries.deliveries.reduce((sum, d) => sum + (d.refusedCount ?? 0), 0);
      return { kind, ...result, refusedSummaries: deliveries.deliveries.length, refusedLogged };
    }
    log(`${kind}: warming up`);
    load({ url: base, path: '/healthz', targets: [], connections, duration: 3 });
    load({ url: base, targets, connections, duration: 3 });

    log(`${kind}: trivial route, ${connections} connections, ${duration} s`);
    const trivial = measured(server.pid, () => load({ url: base, path: '/healthz', targets: [], connections, duration }));
    // The ingress route's own floor: the same POST with the same body to a UID
    // the route refuses by its shape (65 characters), answered 404 before the
    // body is read or the database is asked. What Next.js costs a POST to this
    // dynamic route handler, which no delivery can go below.
    log(`${kind}: ingress route's floor (404 by UID shape), ${connections} connections, ${duration} s`);
    const floorTarget = { path: `/webhooks/w/${'f'.repeat(65)}`, authorization: targets[0].authorization };
    const floor = measured(server.pid, () => load({ url: base, targets: [floorTarget], connections, duration }));
    log(`${kind}: ingress, ${connections} connections, ${duration} s`);
    const ingress = measured(server.pid, () => load({ url: base, targets, connections, duration }));
    log(`${kind}: ingress at a steady 200 deliveries/s, ${duration} s`);
    const steady = load({ url: base, targets, connections: 20, duration, rate: 200 });

    const accepted = (result) => result.statusCodes?.['202']?.count ?? 0;
    const deliveries = (result) => ({
      acceptedPerSecond: Math.round(accepted(result) / result.duration),
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      other: result.non2xx,
    });
    // CPU milliseconds per request answered (per accepted delivery for the ingress).
    const perRequest = (result, count) => Object.fromEntries(Object.entries(result.cpuMs).map(([k, v]) => [k, Number((v / count).toFixed(3))]));
    return {
      kind,
      trivial: { perSecond: trivial.perSecond, p50: trivial.latency.p50, p99: trivial.latency.p99, non2xx: trivial.non2xx, cpuMsPerRequest: perRequest(trivial, trivial.requests) },
      floor: { perSecond: floor.perSecond, p50: floor.latency.p50, p99: floor.latency.p99, statuses: codes(floor), cpuMsPerRequest: perRequest(floor, floor.requests) },
      ingress: { ...deliveries(ingress), cpuMsPerRequest: perRequest(ingress, accepted(ingress)) },
      steady200: deliveries(steady),
      ratio: Number((accepted(ingress) / ingress.duration / trivial.perSecond).toFixed(2)),
      floorRatio: Number((floor.perSecond / trivial.perSecond).toFixed(2)),
      ratioToFloor: Number((accepted(ingress) / ingress.duration / floor.perSecond).toFixed(2)),
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    // The server flushed its spans on the way out.
    const exported = await stopSink();
    if (exported) log(`${kind}: the sink received ${exported.requests} exports of ${exported.contentType} (${Math.round(exported.bytes / 1024)} KiB), the first with ${exported.firstSpans} spans`);
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (!fs.existsSync(path.join(distDir, 'BUILD_ID'))) {
  log('no production build yet: building');
  run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { NEXT_TELEMETRY_DISABLED: '1' });
}

const kinds = process.env.BENCH_ONLY ? [process.env.BENCH_ONLY] : mode === 'flood' ? ['postgres'] : ['postgres', 'pglite'];
const results = [];
for (const kind of kinds) results.push(await benchDatabase(kind));

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
if (mode === 'flood') {
  console.log(`\nIngress under a flood of wrong tokens, ${new Date().toISOString()}, ${machine}, load average ${os.loadavg()[0].toFixed(1)}`);
  console.log(`one webhook, ${Math.max(1, Math.floor(connections / 2))} connections per client, ${duration} s per run, server: ${serverKind}\n`);
  for (const r of results) {
    console.log(`${r.kind}: valid alone ${r.alone.acceptedPerSecond}/s (p50 ${r.alone.p50} ms, p99 ${r.alone.p99} ms)`);
    console.log(`${r.kind}: valid under flood ${r.underFlood.acceptedPerSecond}/s (p50 ${r.underFlood.p50} ms, p99 ${r.underFlood.p99} ms) ${JSON.stringify(r.underFlood.statuses)}`);
    console.log(`${r.kind}: flood ${r.flood.perSecond} req/s ${JSON.stringify(r.flood.statuses)}; refused summaries ${r.refusedSummaries}, refusals counted ${r.refusedLogged}`);
  }
  fs.mkdirSync('bench/results', { recursive: true });
  const file = path.join('bench/results', `ingress-flood-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), machine, duration, connections, results }, null, 2));
  console.log(`\nraw results: ${file}`);
  process.exit(0);
}
console.log(`\nIngress benchmark, ${new Date().toISOString()}, ${machine}`);
console.log(`${FACTORIES * WEBHOOKS_PER_FACTORY} webhooks, ${connections} connections, ${duration} s per run\n`);
console.log('database  | trivial req/s | route floor req/s (ratio) | ingress accepted/s | ratio | to floor | ingress p50/p99 ms | steady 200/s: accepted/s, p50/p99 ms');
for (const r of results) {
  const floor = `${Math.round(r.floor.perSecond)} (${r.floorRatio.toFixed(2)})`;
  console.log(
    `${r.kind.padEnd(9)} | ${String(Math.round(r.trivial.perSecond)).padStart(13)} | ${floor.padStart(25)} | ${String(r.ingress.acceptedPerSecond).padStart(18)} | ${r.ratio.toFixed(2).padStart(5)} | ${r.ratioToFloor.toFixed(2).padStart(8)} | ${`${r.ingress.p50} / ${r.ingress.p99}`.padStart(18)} | ${r.steady200.acceptedPerSecond}, ${r.steady200.p50} / ${r.steady200.p99}` +
      (r.ingress.errors || r.ingress.other || r.steady200.other ? `  (errors ${r.ingress.errors}, non-2xx ${r.ingress.other}/${r.steady200.other})` : ''),
  );
}
console.log('\nCPU ms per request at full load (trivial: per request; ingress: per accepted delivery): server / database / rest (load generator)');
for (const r of results) {
  const cpu = (c) => `${c.server.toFixed(2)} / ${c.database.toFixed(2)} / ${c.other.toFixed(2)}`;
  console.log(`${r.kind.padEnd(9)} | trivial ${cpu(r.trivial.cpuMsPerRequest)} | route floor ${cpu(r.floor.cpuMsPerRequest)} | ingress ${cpu(r.ingress.cpuMsPerRequest)}`);
}
fs.mkdirSync('bench/results', { recursive: true });
const file = path.join('bench/results', `ingress-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), machine, duration, connections, results }, null, 2));
console.log(`\nraw results: ${file}`);
