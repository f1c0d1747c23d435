// Ingress benchmark: `npm run bench` (or `node bench/ingress.mjs`).
//
// Starts the built server on PostgreSQL and on embedded PGlite, creates many
// webhooks, and drives POST /webhooks/w/<uid> with autocannon from a second
// process (bench/load.mjs). For each database it prints accepted deliveries
// per second with p50/p99 latency at full load, p99 at a steady 200
// deliveries/s spread over all webhooks, and the same full-load figures for
// the trivial /healthz route handler measured in the same run, as a ratio.
// The delivery rate limit is raised through TRIPLINE_DELIVERY_RATE_LIMIT,
// as an operator would, not in code.
//
// Settings (environment): BENCH_DATABASE_URL (a PostgreSQL server where a
// database may be created; default TEST_DATABASE_URL or
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_DURATION (seconds per
// run, default 15), BENCH_CONNECTIONS (default 32), BENCH_ONLY (postgres|pglite),
// BENCH_PROFILE (a folder for a CPU profile of the server).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
const duration = Number(process.env.BENCH_DURATION ?? 15);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const port = Number(process.env.BENCH_PORT ?? 3790);
const FACTORIES = 5;
const WEBHOOKS_PER_FACTORY = 20;
const distDir = process.env.NEXT_DIST_DIR || '.next';

const log = (line) => console.error(`[bench] ${line}`);

function run(command, args, env = {}, input) {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}\n${result.stdout}`);
  return result.stdout.trim();
}

const cli = (env, args, input) => run(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'cli/tripline.ts', ...args], env, input);

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

  log(`${kind}: seeding ${FACTORIES} factories through the CLI`);
  for (let f = 1; f <= FACTORIES; f++) {
    cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', `bench-${f}`], 'bench password 123');
  }
  const token = cli(env, ['token', 'create', '--email', 'bench@example.test']);

  // BENCH_PROFILE=<dir>: write a V8 CPU profile of the server (read it with bench/profile-summary.mjs).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROFILE)}`] : [];
  // The production entry (server.ts), as `npm start` runs it.
  const server = spawn(process.execPath, [...profile, '--import', 'tsx', 'server.ts'], {
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

    log(`${kind}: warming up`);
    load({ url: base, path: '/healthz', targets: [], connections, duration: 3 });
    load({ url: base, targets, connections, duration: 3 });

    log(`${kind}: trivial route, ${connections} connections, ${duration} s`);
    const trivial = load({ url: base, path: '/healthz', targets: [], connections, duration });
    log(`${kind}: ingress, ${connections} connections, ${duration} s`);
    const ingress = load({ url: base, targets, connections, duration });
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
    return {
      kind,
      trivial: { perSecond: trivial.perSecond, p50: trivial.latency.p50, p99: trivial.latency.p99, non2xx: trivial.non2xx },
      ingress: deliveries(ingress),
      steady200: deliveries(steady),
      ratio: Number((accepted(ingress) / ingress.duration / trivial.perSecond).toFixed(2)),
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (!fs.existsSync(path.join(distDir, 'BUILD_ID'))) {
  log('no production build yet: building');
  run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { NEXT_TELEMETRY_DISABLED: '1' });
}

const kinds = process.env.BENCH_ONLY ? [process.env.BENCH_ONLY] : ['postgres', 'pglite'];
const results = [];
for (const kind of kinds) results.push(await benchDatabase(kind));

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
console.log(`\nIngress benchmark, ${new Date().toISOString()}, ${machine}`);
console.log(`${FACTORIES * WEBHOOKS_PER_FACTORY} webhooks, ${connections} connections, ${duration} s per run\n`);
console.log('database  | trivial req/s | ingress accepted/s | ratio | ingress p50/p99 ms | steady 200/s: accepted/s, p50/p99 ms');
for (const r of results) {
  console.log(
    `${r.kind.padEnd(9)} | ${String(Math.round(r.trivial.perSecond)).padStart(13)} | ${String(r.ingress.acceptedPerSecond).padStart(18)} | ${r.ratio.toFixed(2).padStart(5)} | ${`${r.ingress.p50} / ${r.ingress.p99}`.padStart(18)} | ${r.steady200.acceptedPerSecond}, ${r.steady200.p50} / ${r.steady200.p99}` +
      (r.ingress.errors || r.ingress.other || r.steady200.other ? `  (errors ${r.ingress.errors}, non-2xx ${r.ingress.other}/${r.steady200.other})` : ''),
  );
}
fs.mkdirSync('bench/results', { recursive: true });
const file = path.join('bench/results', `ingress-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), machine, duration, connections, results }, null, 2));
console.log(`\nraw results: ${file}`);
