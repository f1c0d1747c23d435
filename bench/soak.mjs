// An hour's soak: `node bench/soak.mjs` (BENCH_ONLY=postgres|pglite for one database; BENCH_MINUTES,
// default 60).
//
// The production server (scripts/serve.mjs, as `npm start`) on a new database takes a steady 200
// deliveries a second over 19 webhooks (bench/load.mjs, open loop, one line of figures a minute) for
// BENCH_MINUTES, while everything else an instance does runs beside it:
//   - the server's own jobs (health and rollups every 60 s, retention, notifications);
//   - runs: one delivery a second to a 20th webhook, which an automation's trigger matches, each
//     run executing a command (/bin/true);
//   - a Backtest caller: the automation's trigger over the whole log, every 10 s, through the API;
//   - a `tripline listen` process forwarding one webhook's deliveries to a local receiver;
//   - a bulk replay of that webhook's last deliveries (at most 500) started every 10 minutes.
// Every minute it samples the server's resident memory, its open file descriptors (/proc/<pid>/fd,
// also by kind: sockets, the data folder's files, the rest)
// and, on PostgreSQL, the database's connections (pg_stat_activity). It prints one JSON line per
// minute, then a summary against the goals of docs/benchmarks.md: memory flat after warm-up (the
// last 10 minutes' mean against minutes 10 to 20), p99 stable (every minute's p99 after warm-up
// within 2× the median minute's), and open handles and connections not growing (end against
// minute 10, and a last sample a minute after the load ends, once the hourly jobs that start at
// the hour are done). Run it on a quiet machine.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { cli, scratchDatabase, serverNodeFlags } from './harness.mjs';

const MINUTES = Number(process.env.BENCH_MINUTES ?? 60);
const RATE = 200;
// A factory holds at most 20 webhooks: 19 take the load, the 20th the deliveries that start runs.
const WEBHOOKS = 19;
const port = Number(process.env.BENCH_PORT ?? 3796);
const base = `http://127.0.0.1:${port}`;
const log = (line) => console.error(`[soak] ${new Date().toISOString().slice(11, 19)} ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
/** The server's open descriptors by what they are: sockets, files of the data folder (the embedded database's), and the rest; `total` is their sum (one listing). */
function fdKinds(pid, dataDir) {
  const kinds = { sockets: 0, dataFiles: 0, other: 0 };
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed while listed
    }
    if (target.startsWith('socket:')) kinds.sockets += 1;
    else if (target.startsWith(dataDir)) kinds.dataFiles += 1;
    else kinds.other += 1;
  }
  return { total: kinds.sockets + kinds.dataFiles + kinds.other, ...kinds };
}
/** A sample's `fds` (the total) and `fdKinds`, from one listing of /proc/<pid>/fd. */
function descriptors(pid, dataDir) {
  const { total, ...kinds } = fdKinds(pid, dataDir);
  return { fds: total, fdKinds: kinds };
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mean = (values) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

async function api(token, method, pathname, body) {
  const response = await fetch(`${base}/api/v1/factories/soak${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** A local receiver for `tripline listen`: counts what it is given. */
function receiver() {
  let count = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/hook`, count: () => count, close: () => server.close() })));
}

async function soak(kind) {
  const scratch = kind === 'postgres' ? await scratchDatabase('soak', port) : null;
  const dataDir = scratch?.env.TRIPLINE_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-soak-'));
  const key = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
  const env = {
    ...(scratch?.env ?? { TRIPLINE_DATA_DIR: dataDir, TRIPLINE_SECRETS_KEY: key(), TRIPLINE_AUTH_SECRET: key() }),
    DATABASE_URL: scratch?.url ?? '',
    TRIPLINE_BASE_URL: base,
    TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
    TRIPLINE_RUN_COMMAND: '/bin/true',
    PORT: String(port),
    NEXT_TELEMETRY_DISABLED: '1',
  };
  const children = [];
  const stop = async (child) => {
    if (child.exitCode === 0 && !child.pid) child.kill();
    else if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  };
  const local = await receiver();
  const dbClient = scratch ? new pg.Client({ connectionString: scratch.url }) : null;
  try {
    cli(env, ['setup', '--email', 'soak@example.test', '--password-stdin', '--factory', 'soak'], 'soak password 123');
    const token = cli(env, ['token', 'create', '--email', 'soak@example.test']);
    const server = spawn(process.execPath, [...serverNodeFlags(), 'scripts/serve.mjs'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(server);
    for (let i = 0; !(await fetch(`${base}/readyz`).catch(() => null))?.ok; i++) {
      if (server.exitCode !== null || i > 1200) throw new Error('the server did not become ready');
      await sleep(250);
    }
    await dbClient?.connect();

    const targets = [];
    for (let w = 0; w <= WEBHOOKS; w++) {
      const created = await api(token, 'POST', '/webhooks', { name: `hook-${w}` });
      targets.push({ uid: created.webhook.uid, path: new URL(created.ingressUrl).pathname, authorization: `Bearer ${created.secret}` });
    }
    const runs = targets.pop();
    const trigger = { provider: 'webhook', event: 'received', filter: { webhook_ids: [runs.uid], payload: { kind: 'run' } } };
    await api(token, 'POST', '/automations', { name: 'soak', prompt: 'Soak.', triggers: [trigger] });
    log(`${kind}: ready; ${WEBHOOKS} webhooks and one for runs; ${RATE}/s for ${MINUTES} min`);
    let runDeliveries = 0;
    const runSender = setInterval(() => {
      runDeliveries += 1;
      fetch(`${base}${runs.path}`, { method: 'POST', headers: { authorization: runs.authorization, 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'run', n: runDeliveries }) }).catch(() => undefined);
    }, 1_000);
    children.push({ exitCode: 0, kill: () => clearInterval(runSender) });

    const listen = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'cli/tripline.ts', 'listen', '--url', base, '--token', token, '--factory', 'soak', '--webhook', targets[1].uid, '--forward', local.url], {
      env: { PATH: process.env.PATH, HOME: os.tmpdir(), NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(listen);

    const optionsFile = path.join(dataDir, 'load.json');
    fs.writeFileSync(optionsFile, JSON.stringify({ url: base, targets, connections: 64, rate: RATE, window: 60 }));
    const load = spawn(process.execPath, ['bench/load.mjs', `@${optionsFile}`], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(load);
    const windows = [];
    let buffered = '';
    load.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        windows.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
    });

    const samples = [];
    const backtests = [];
    const replays = [];
    const started = performance.now();
    let nextBacktest = 0;
    let nextReplay = 60_000;
    for (let minute = 1; minute <= MINUTES; minute++) {
      while (performance.now() - started < minute * 60_000) {
        const now = performance.now() - started;
        if (now >= nextBacktest) {
          nextBacktest += 10_000;
          const t0 = performance.now();
          await api(token, 'POST', '/automations/backtest', { trigger, limit: 25 })
            .then(() => backtests.push(performance.now() - t0))
            .catch((error) => log(`backtest failed: ${error.message}`));
        }
        if (now >= nextReplay) {
          nextReplay += 10 * 60_000;
          await api(token, 'POST', '/replay-jobs', { selection: { webhook: targets[1].uid, from: new Date(Date.now() - 3_000).toISOString() } })
            .then((job) => replays.push(job.job?.id ?? job.id))
            .catch((error) => log(`replay failed: ${error.message}`));
        }
        await sleep(Math.min(1_000, minute * 60_000 - (performance.now() - started)));
      }
      const connections = dbClient ? Number((await dbClient.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()')).rows[0].n) : null;
      const window = windows.at(-1);
      const sample = { minute, rssMb: rssMb(server.pid), ...descriptors(server.pid, dataDir), connections, p50: window?.latency?.p50 ?? null, p99: window?.latency?.p99 ?? null, forwarded: local.count(), backtestMs: Math.round(median(backtests.slice(-6)) ?? 0) };
      samples.push(sample);
      console.log(JSON.stringify({ database: kind, ...sample }));
    }
    load.stdin.end();
    await new Promise((resolve) => load.once('exit', resolve));
    // A minute after the load, with the runs, Backtests and the stream still going: what the server holds once the
    // load's sockets are closed, and once the hourly jobs (retention, the embedded database's VACUUM) that begin
    // at the hour's end are over. A count that grows is still high here; one the load or a job held has fallen back.
    await sleep(60_000);
    const settled = { rssMb: rssMb(server.pid), ...descriptors(server.pid, dataDir) };
    console.log(JSON.stringify({ database: kind, settled }));

    const after = (from) => samples.filter((s) => s.minute > from);
    const warm = Math.min(10, Math.floor(MINUTES / 3));
    const p99s = after(warm).map((s) => s.p99).filter((v) => v !== null);
    const summary = {
      database: kind,
      minutes: MINUTES,
      requests: windows.reduce((sum, w) => sum + (w.requests ?? 0), 0),
      non2xx: windows.reduce((sum, w) => sum + (w.non2xx ?? 0), 0),
      memory: { warmMeanMb: Math.round(mean(samples.filter((s) => s.minute > warm && s.minute <= 2 * warm).map((s) => s.rssMb))), lastMeanMb: Math.round(mean(samples.slice(-warm).map((s) => s.rssMb))) },
      p99: { medianMs: median(p99s), worstMs: Math.max(...p99s), bestMs: Math.min(...p99s) },
      fds: { atWarm: samples[warm - 1]?.fds, atEnd: samples.at(-1)?.fds, settled: settled.fds, settledKinds: settled.fdKinds },
      connections: { atWarm: samples[warm - 1]?.connections, atEnd: samples.at(-1)?.connections },
      forwarded: local.count(),
      backtest: { calls: backtests.length, medianMs: Math.round(median(backtests)) },
      runs: dbClient ? Object.fromEntries((await dbClient.query('SELECT status::text, count(*)::int AS n FROM "Run" GROUP BY 1')).rows.map((r) => [r.status, r.n])) : { deliveries: runDeliveries },
      replayJobs: replays.length,
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
      date: new Date().toISOString(),
    };
    console.log(JSON.stringify({ summary }));
  } finally {
    for (const child of children.reverse()) await stop(child);
    local.close();
    await dbClient?.end().catch(() => undefined);
    if (scratch) await scratch.drop();
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const only = process.env.BENCH_ONLY;
for (const kind of ['postgres', 'pglite']) if (!only || only === kind) await soak(kind);
