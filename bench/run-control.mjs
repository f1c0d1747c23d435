// Run control's cost: `node bench/run-control.mjs` (PostgreSQL, a scratch database).
//
// 20 webhooks, and 20 automations that each match one of them. A steady
// 200 deliveries/s (bench/load.mjs, open loop) spread over the 20 webhooks,
// in phases that alternate the automations' run control off and on
// (off, on, off, on, ... BENCH_ROUNDS pairs of BENCH_SECONDS each):
//   off: every matching delivery starts a run;
//   on:  {"key": ["$event"], "concurrency": {"limit": 1, "whenFull": "queue-newest"}}:
//        every delivery goes through the scheduler (lib/domain/run-control):
//        the first run of each automation starts, and each later delivery
//        waits and supersedes the one that waited before it.
// No executor is set, so a started run stays queued and each group stays
// full: every delivery of an "on" phase takes a decision. A run without run
// control (an "off" phase's) is ended by the bench every 250 ms instead, as a
// fast worker would: otherwise 6,000 queued runs pile up per phase, and the
// ingress's count against the run queue limit (which the bench raises to a
// million) grows with them, phase after phase, so later phases measured the
// pile, not run control (2026-11-29: "off" p99 303 ms, then 10.7 s).
// Each phase starts from an empty Run table.
//
// Prints per phase the ingress's p50/p99 (and at the end each mode's p99 over all its phases'
// requests together, with a bootstrap interval of on against off), the outcomes counted on /metrics
// (tripline_run_control_outcomes_total), the CPU spent per delivery by
// the server and by PostgreSQL (from /proc), and the server's event-loop
// delay over the phase (p99 and maximum, from /metrics); the difference
// between "on" and "off" is the scheduler's decision cost per delivery. To find where an "on"
// phase's time goes, it also samples pg_stat_activity every 100 ms for the
// statements running and those waiting on a lock (which, how often), and reads the
// RunGroup and Run tables' churn at each phase's end (live and dead rows,
// updates, HOT updates, size): these do not depend on the machine's speed.
// Settings: BENCH_SECONDS (default 30), BENCH_ROUNDS (default 2), BENCH_PORT.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, distDir, ensureBuild, processTicks, quantile, scratchDatabase, serverNodeFlags, waitForHealthz } from './harness.mjs';

const WEBHOOKS = 20;
const RATE = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const port = Number(process.env.BENCH_PORT ?? 3797);
const origin = `http://localhost:${port}`;
const METRICS_TOKEN = 'bench-metrics-token';
const RUN_CONTROL = { key: ['$event'], concurrency: { limit: 1, whenFull: 'queue-newest' } };
const log = (line) => console.error(`[bench] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * CPU ticks (10 ms) of the server process and its children, and of every
 * PostgreSQL process, per process: a phase's CPU is the growth of each
 * process that lived through it plus all of a new one's (cpuSince). A
 * PostgreSQL process that ends takes its time with it, so totals alone went
 * negative when a backend or an autovacuum worker ended during a phase.
 */
function cpu(serverPid) {
  const all = processTicks();
  const server = new Map();
  const database = new Map();
  const inServer = (pid) => {
    for (let p = pid, depth = 0; p > 1 && depth < 10; depth++) {
      if (p === serverPid) return true;
      p = all.get(p)?.ppid ?? 0;
    }
    return false;
  };
  for (const [pid, entry] of all) {
    if (inServer(pid)) server.set(pid, entry.ticks);
    else if (entry.comm.startsWith('postgres')) database.set(pid, entry.ticks);
  }
  return { server, database };
}

/** Ticks spent since `before` by the processes alive at `after` (a process that ended meanwhile is not counted). */
function cpuSince(before, after) {
  const grown = (was, now) => [...now].reduce((sum, [pid, ticks]) => sum + ticks - (was.get(pid) ?? 0), 0);
  return { server: grown(before.server, after.server), database: grown(before.database, after.database) };
}

/** What /metrics says now: run control's outcome counts, and the server's event-loop delay since the last read. */
async function readMetrics() {
  const text = await (await fetch(`${origin}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const counts = {};
  for (const match of text.matchAll(/^tripline_run_control_outcomes_total\{outcome="([a-z_]+)"\} (\d+)/gm)) counts[match[1]] = Number(match[2]);
  // The server's event-loop delay since the last read of /metrics (prom-client resets it at each read), in ms.
  const lag = (name) => Number(new RegExp(`^tripline_nodejs_eventloop_lag_${name}_seconds (\\S+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { counts, lag: { p99: lag('p99'), max: lag('max') } };
}

/**
 * Samples, every 100 ms until stopped, the server's statements running in
 * PostgreSQL, by their first 70 characters: those waiting on a lock, and the
 * others (a sampling profile of the database's time); resolves to
 * { samples, waits: { text: count }, active: { text: count } }.
 */
function sampleLockWaits(url) {
  const client = new pg.Client({ connectionString: url });
  const waits = {};
  const active = {};
  let samples = 0;
  let stopped = false;
  const done = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query(
        `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS "text", wait_event_type = 'Lock' AS "waiting", count(*)::int AS "n" FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() GROUP BY 1, 2`,
      );
      samples += 1;
      for (const row of rows) {
        const counts = row.waiting ? waits : active;
        counts[row.text] = (counts[row.text] ?? 0) + row.n;
      }
      await sleep(100);
    }
    await client.end();
    return { samples, waits, active };
  })();
  return { stop: () => ((stopped = true), done) };
}

/** RunGroup's and Run's rows and churn so far (pg_stat_user_tables), and their sizes with indexes. */
async function tableChurn(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT relname AS "table", n_live_tup::int AS "live", n_dead_tup::int AS "dead", n_tup_upd::int AS "updates", n_tup_hot_upd::int AS "hot",
              pg_total_relation_size(relid)::bigint / 1024 AS "kB", autovacuum_count::int AS "autovacuums"
         FROM pg_stat_user_tables WHERE relname IN ('RunGroup', 'Run') ORDER BY relname`,
    );
    return Object.fromEntries(rows.map(({ table, ...rest }) => [table, { ...rest, kB: Number(rest.kB) }]));
  } finally {
    await client.end();
  }
}

/** Ends, every 250 ms until stopped, the queued runs without run control, as a fast worker would. */
function endPlainRuns(url) {
  const client = new pg.Client({ connectionString: url });
  let stopped = false;
  const done = (async () => {
    await client.connect();
    while (!stopped) {
      await client.query(`UPDATE "Run" SET "status" = 'succeeded', "startedAt" = now(), "finishedAt" = now() WHERE "status" = 'queued' AND "controlKey" IS NULL`);
      await sleep(250);
    }
    await client.end();
  })();
  return { stop: () => ((stopped = true), done) };
}

/** Empties Run and RunGroup between phases, so each phase starts from the same state. */
async function resetRuns(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('TRUNCATE "Run", "RunGroup" CASCADE');
    await client.query('VACUUM ANALYZE "Run", "RunGroup"');
  } finally {
    await client.end();
  }
}

const runAsync = promisify(execFile);

ensureBuild();
const { env, drop } = await scratchDatabase('runcontrol', port);
let server;
const phases = [];
try {
  cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
  const token = cli(env, ['token', 'create', '--email', 'bench@example.test']);
  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  server = spawn(process.execPath, [...serverNodeFlags(), 'scripts/serve.mjs'], {
    env: { ...process.env, ...env, NEXT_DIST_DIR: distDir, PORT: String(port), TRIPLINE_RUN_QUEUE_LIMIT: '1000000', TRIPLINE_DELIVERY_RATE_LIMIT: '1000000', TRIPLINE_METRICS_TOKEN: METRICS_TOKEN },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForHealthz(origin);
  const api = async (route, body, method = 'POST') => {
    const response = await fetch(`${origin}/api/v1/factories/bench${route}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await response.json();
    if (!response.ok) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const targets = [];
  const automations = [];
  for (let i = 0; i < WEBHOOKS; i++) {
    const created = await api('/webhooks', { name: `bench-${i}` });
    targets.push({ path: new URL(created.ingressUrl).pathname, authorization: `Bearer ${created.secret}` });
    const automation = await api('/automations', {
      name: `bench-${i}`,
      prompt: 'Handle it.',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [created.webhook.uid] } }],
    });
    automations.push(automation.automation?.id ?? automation.id);
  }
  const optionsFile = path.join(os.tmpdir(), `tripline-bench-runcontrol-${process.pid}.json`);
  const modes = Array.from({ length: ROUNDS }, () => ['off', 'on']).flat();
  // A warm-up phase first (JIT, connections), not counted.
  for (const [index, mode] of ['off', ...modes].entries()) {
    for (const id of automations) await api(`/automations/${id}`, { runControl: mode === 'on' ? RUN_CONTROL : null }, 'PATCH');
    await resetRuns(env.DATABASE_URL);
    await sleep(1000);
    const before = { cpu: cpu(server.pid), outcomes: (await readMetrics()).counts };
    fs.writeFileSync(optionsFile, JSON.stringify({ url: origin, targets, connections: 16, rate: RATE, duration: SECONDS }));
    const sampler = sampleLockWaits(env.DATABASE_URL);
    const worker = endPlainRuns(env.DATABASE_URL);
    const load = JSON.parse((await runAsync(process.execPath, ['bench/load.mjs', `@${optionsFile}`], { maxBuffer: 64 * 1024 * 1024 })).stdout);
    // The scheduler decides shortly after the ingress: let it finish this phase's deliveries.
    await sleep(2000);
    // Read before the bench's own connections close: a PostgreSQL process that ends takes its CPU time with it.
    const read = await readMetrics();
    const after = { cpu: cpu(server.pid), outcomes: read.counts };
    const lockWaits = await sampler.stop();
    await worker.stop();
    const churn = await tableChurn(env.DATABASE_URL);
    const accepted = load.statusCodes?.['202']?.count ?? 0;
    const decided = Object.fromEntries(Object.entries(after.outcomes).map(([k, v]) => [k, v - (before.outcomes[k] ?? 0)]).filter(([, v]) => v > 0));
    const phase = {
      mode,
      accepted,
      requests: load.requests,
      p50: load.latency.p50,
      p99: load.latency.p99,
      histogram: load.histogram,
      serverMsPerDelivery: (cpuSince(before.cpu, after.cpu).server * 10) / accepted,
      databaseMsPerDelivery: (cpuSince(before.cpu, after.cpu).database * 10) / accepted,
      decided,
      loopLag: read.lag,
      lockWaits,
      churn,
    };
    log(`${index === 0 ? 'warm-up ' : ''}${mode}: ${JSON.stringify({ ...phase, histogram: undefined })}`);
    if (index > 0) phases.push(phase);
  }
  fs.rmSync(optionsFile, { force: true });
} finally {
  server?.kill('SIGTERM');
  if (server) await new Promise((resolve) => server.once('exit', resolve));
  await drop();
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
};
console.log(`\nRun control's cost, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, PostgreSQL`);
console.log(`${WEBHOOKS} webhooks and ${WEBHOOKS} automations; a steady ${RATE} deliveries/s for ${SECONDS} s per phase; run control ${JSON.stringify(RUN_CONTROL)}`);
console.log('phase | accepted | p50 ms | p99 ms | server CPU ms/delivery | PostgreSQL CPU ms/delivery | event-loop delay p99 / max ms | outcomes');
for (const p of phases) {
  const lag = `${p.loopLag.p99.toFixed(1)} / ${p.loopLag.max.toFixed(1)}`;
  console.log(`${p.mode} | ${p.accepted}/${p.requests} | ${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.serverMsPerDelivery.toFixed(2)} | ${p.databaseMsPerDelivery.toFixed(2)} | ${lag} | ${JSON.stringify(p.decided)}`);
}
console.log('\nStatements in PostgreSQL, sampled every 100 ms (samples x backends): waiting on a lock, and the five most often running; the tables at each phase\'s end:');
for (const p of phases) {
  const waits = Object.entries(p.lockWaits.waits).sort(([, a], [, b]) => b - a);
  const active = Object.entries(p.lockWaits.active).sort(([, a], [, b]) => b - a).slice(0, 5);
  console.log(`${p.mode}: ${p.lockWaits.samples} samples; waiting on a lock: ${waits.length ? waits.map(([text, n]) => `${n} x "${text}"`).join('; ') : 'none'}`);
  console.log(`  running: ${active.length ? active.map(([text, n]) => `${n} x "${text}"`).join('; ') : 'none'}`);
  console.log(`  ${Object.entries(p.churn).map(([table, t]) => `${table}: ${t.live} live, ${t.dead} dead, ${t.updates} updates (${t.hot} HOT), ${t.kB} kB, ${t.autovacuums} autovacuums`).join('; ')}`);
}
const of = (mode, key) => median(phases.filter((p) => p.mode === mode).map((p) => p[key]));
const p99Off = of('off', 'p99');
const p99On = of('on', 'p99');
const percent = (ratio) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(0)}%`;
console.log(`median p99: off ${p99Off.toFixed(1)} ms, on ${p99On.toFixed(1)} ms (${percent(p99On / p99Off)})`);
// A phase's p99 rests on its slowest 1% (60 requests in 30 s), so phases of one mode differ by half
// and a median of a few of them moves by more than the 10% asked. Pooled: the p99 of every request of
// a mode's phases together; and how far it can be trusted, by resampling the phases (bootstrap,
// 2,000 draws, seeded so that a run prints the same interval from the same phases).
const histograms = (mode) => phases.filter((p) => p.mode === mode).map((p) => p.histogram);
const pooledOff = quantile(histograms('off'), 0.99);
const pooledOn = quantile(histograms('on'), 0.99);
let seed = 20261201;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const draw = (items) => items.map(() => items[Math.floor(random() * items.length)]);
const ratios = Array.from({ length: 2000 }, () => quantile(draw(histograms('on')), 0.99) / quantile(draw(histograms('off')), 0.99)).sort((a, b) => a - b);
console.log(
  `pooled p99: off ${pooledOff} ms, on ${pooledOn} ms (${percent(pooledOn / pooledOff)}; 90% of resampled phases between ${percent(ratios[100])} and ${percent(ratios[1899])})`,
);
console.log(
  `decision cost per delivery (on - off, medians): server ${(of('on', 'serverMsPerDelivery') - of('off', 'serverMsPerDelivery')).toFixed(2)} ms CPU, PostgreSQL ${(of('on', 'databaseMsPerDelivery') - of('off', 'databaseMsPerDelivery')).toFixed(2)} ms CPU`,
);
