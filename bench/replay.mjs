// Bulk replay benchmark: `node bench/replay.mjs` (PostgreSQL, a scratch database).
//
// One webhook with 5,000 accepted deliveries (inserted directly) and an
// automation that matches each; no executor, so every replayed delivery adds
// one queued run (the run queue limit is raised past 5,000). Measures:
//   - deliveries replayed per second by a 5,000-delivery job, at the
//     default pace (TRIPLINE_REPLAY_RATE=20) and unpaced (1,000);
//   - the ingress meanwhile: a steady 50 deliveries/s to another webhook,
//     p50/p99 latency alone and while each job runs.
// Settings: BENCH_RATES (default "20,1000"), BENCH_SECONDS (the paced job's
// sample, default 30), BENCH_PORT. Measure under `flock -x /work/cpu.lock`.
import { spawn } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { cli, distDir, ensureBuild, scratchDatabase, waitForHealthz } from './harness.mjs';

const ENTRIES = 5_000;
const RATES = (process.env.BENCH_RATES ?? '20,1000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const STEADY_PER_SECOND = 50;
const port = Number(process.env.BENCH_PORT ?? 3798);
const origin = `http://localhost:${port}`;
const log = (line) => console.error(`[bench] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

ensureBuild();
const results = [];
for (const rate of RATES) {
  const { url, env, drop } = await scratchDatabase('replay', port);
  let server;
  try {
    cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
    const token = cli(env, ['token', 'create', '--email', 'bench@example.test']);
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    server = spawn(process.execPath, ['scripts/serve.mjs'], {
      env: { ...process.env, ...env, NEXT_DIST_DIR: distDir, PORT: String(port), TRIPLINE_REPLAY_RATE: String(rate), TRIPLINE_RUN_QUEUE_LIMIT: '100000', TRIPLINE_DELIVERY_RATE_LIMIT: '1000000' },
      stdio: 'ignore',
    });
    await waitForHealthz(origin);
    const api = async (path, body, method = 'POST') => {
      const response = await fetch(`${origin}/api/v1/factories/bench${path}`, { method, headers: auth, body: body ? JSON.stringify(body) : undefined });
      const json = await response.json();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const replayed = (await api('/webhooks', { name: 'replayed' })).webhook.uid;
    const steady = await api('/webhooks', { name: 'steady' });
    const steadyPath = new URL(steady.ingressUrl).pathname;
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { rows } = await db.query('SELECT id FROM "Webhook" WHERE uid = $1', [replayed]);
    await db.query(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers")
       SELECT 'dl_replay_' || lpad(n::text, 6, '0'), $1, 'evt_' || n, 'service_header', 'accepted', 40, now() - ((${ENTRIES} - n) || ' seconds')::interval,
              json_build_object('action', 'opened', 'number', n)::text, '{"content-type":"application/json"}'::jsonb
         FROM generate_series(1, ${ENTRIES}) AS n`,
      [rows[0].id],
    );
    await db.query('VACUUM ANALYZE "Delivery"');
    await api('/automations', { name: 'every', prompt: 'Handle it.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [replayed] } }] });

    /** A steady open loop to the other webhook until `done()`: each delivery's latency. */
    async function steadyLoad(done) {
      const samples = [];
      const inFlight = [];
      let n = 0;
      const started = performance.now();
      while (!done()) {
        const body = JSON.stringify({ n: ++n });
        inFlight.push(
          (async () => {
            const t0 = performance.now();
            const response = await fetch(`${origin}${steadyPath}`, { method: 'POST', headers: { Authorization: `Bearer ${steady.secret}`, 'Content-Type': 'application/json' }, body });
            await response.arrayBuffer();
            samples.push({ ms: performance.now() - t0, status: response.status });
          })(),
        );
        await sleep(Math.max(0, started + (n * 1000) / STEADY_PER_SECOND - performance.now()));
      }
      await Promise.all(inFlight);
      return samples;
    }
    const describe = (samples) => {
      const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
      const ok = samples.filter((s) => s.status === 202).length;
      return `${ok}/${samples.length} answered 202, p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms`;
    };

    const aloneUntil = Date.now() + 15_000;
    const alone = await steadyLoad(() => Date.now() > aloneUntil);
    const job = await api('/replay-jobs', { selection: { webhook: replayed } });
    const t0 = Date.now();
    let state = job;
    // The paced job would take minutes: sample it for BENCH_SECONDS; an unpaced one runs to the end.
    const sampleUntil = rate >= 1000 ? Infinity : t0 + SECONDS * 1000;
    const poller = (async () => {
      while (state.status === 'running' && Date.now() < sampleUntil) {
        await sleep(500);
        state = await api(`/replay-jobs/${job.id}`, undefined, 'GET');
      }
    })();
    const during = await steadyLoad(() => state.status !== 'running' || Date.now() >= sampleUntil);
    await poller;
    const seconds = (Date.now() - t0) / 1000;
    if (state.status === 'running') await api(`/replay-jobs/${job.id}/cancel`);
    await db.end();
    results.push({ rate, done: state.done, seconds, status: state.status, alone: describe(alone), during: describe(during) });
    log(`rate ${rate}: ${state.done} replayed in ${seconds.toFixed(1)} s (${state.status})`);
  } finally {
    server?.kill('SIGTERM');
    if (server) await new Promise((resolve) => server.once('exit', resolve));
    await drop();
  }
}
console.log(`\nBulk replay, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, PostgreSQL, a job of ${ENTRIES} deliveries, each starting one run; the ingress at a steady ${STEADY_PER_SECOND}/s to another webhook`);
console.log('TRIPLINE_REPLAY_RATE | replayed | seconds | replayed/s | ingress alone | ingress during the job');
for (const r of results) console.log(`${r.rate} | ${r.done} (${r.status}) | ${r.seconds.toFixed(1)} | ${(r.done / r.seconds).toFixed(1)} | ${r.alone} | ${r.during}`);
