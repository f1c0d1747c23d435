// Backtest under load, against the real server on PostgreSQL:
// `node bench/backtest-load.mjs`.
//
// Two factories each get a webhook whose log holds BENCH_ENTRIES (default
// 150,000) accepted 1-4 KB deliveries inserted without their jsonb copies, as
// after an upgrade or a restore: Backtest then evaluates bodies in TypeScript
// (up to its bound of 20,000 bodies or 64 MB per call) until the copy job has
// caught up. Eight callers, four per factory, loop on Backtest over HTTP without
// pause (a 429 is retried after 50 ms, not after its Retry-After: the worst a
// caller can do), while three other webhooks receive one delivery every 0.45 s
// between them (in turn: 44 a minute each, under the delivery rate limit of 60).
// Prints the trickle's latency alone, then under the Backtest load, with every
// status seen, and what the callers got (Backtests answered, 429s).
//
// Settings (environment): BENCH_DATABASE_URL (default TEST_DATABASE_URL, then
// the local server), BENCH_ENTRIES, BENCH_SECONDS (the loaded window, default
// 60), BENCH_PORT (default 3797), NEXT_DIST_DIR.
import { spawn } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { BODY } from './bodies.mjs';
import { cli, distDir, ensureBuild, scratchDatabase, waitForHealthz } from './harness.mjs';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 150_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const BASELINE_SECONDS = 20;
const CALLERS = 8;
const TRICKLE_MS = 450;
const port = Number(process.env.BENCH_PORT ?? 3797);
const origin = `http://localhost:${port}`;
const log = (line) => console.error(`[bench] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

ensureBuild();
const { url, env, drop } = await scratchDatabase('btload', port);
let server;
try {
  cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
  const token = cli(env, ['token', 'create', '--email', 'bench@example.test']);
  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

  server = spawn(process.execPath, ['scripts/serve.mjs'], { env: { ...process.env, ...env, NEXT_DIST_DIR: distDir, PORT: String(port) }, stdio: 'ignore' });
  await waitForHealthz(origin);
  const api = async (path, body) => {
    const response = await fetch(`${origin}/api/v1${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    const json = await response.json();
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  await api('/factories', { name: 'Bench two', slug: 'bench2' });
  const busy = [];
  for (const factory of ['bench', 'bench2']) busy.push({ factory, uid: (await api(`/factories/${factory}/webhooks`, { name: 'busy' })).webhook.uid });
  const trickles = [];
  for (const name of ['trickle-1', 'trickle-2', 'trickle-3']) {
    const created = await api('/factories/bench/webhooks', { name });
    trickles.push({ path: new URL(created.ingressUrl).pathname, secret: created.secret });
  }

  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const started = Date.now();
  for (const [index, hook] of busy.entries()) {
    const { rows } = await db.query('SELECT id FROM "Webhook" WHERE uid = $1', [hook.uid]);
    log(`inserting ${ENTRIES} accepted deliveries without copies into ${hook.factory}/busy`);
    for (let from = 1; from <= ENTRIES; from += 50_000) {
      await db.query(
        `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers")
         SELECT 'dl_bench${index}_' || lpad(n::text, 8, '0'), $1, 'evt_' || n, 'service_header', 'accepted', octet_length(b::text),
                now() - ((${ENTRIES} - n) || ' seconds')::interval, b::text, '{"content-type":"application/json"}'::jsonb
           FROM generate_series($2::int, $3::int) AS n, LATERAL (SELECT ${BODY} AS b) body`,
        [rows[0].id, from, Math.min(from + 49_999, ENTRIES)],
      );
    }
  }
  // No copies yet: the copy job's cursor goes back before the inserted entries.
  await db.query(`DELETE FROM "InstanceSetting" WHERE "key" = 'backtest.copiedThrough'`);
  await db.query('VACUUM ANALYZE "Delivery"');
  log(`filled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const copies = async () => Number((await db.query('SELECT count(*) AS n FROM "DeliveryJson"')).rows[0].n);

  let sent = 0;
  /** One delivery every 0.45 s for `seconds`: each one's latency and status. */
  async function runTrickle(seconds) {
    const samples = [];
    const until = Date.now() + seconds * 1000;
    const inFlight = [];
    while (Date.now() < until) {
      const body = JSON.stringify({ n: ++sent, at: new Date().toISOString() });
      const trickle = trickles[sent % trickles.length];
      inFlight.push(
        (async () => {
          const t0 = performance.now();
          let status;
          try {
            const response = await fetch(`${origin}${trickle.path}`, { method: 'POST', headers: { Authorization: `Bearer ${trickle.secret}`, 'Content-Type': 'application/json' }, body });
            status = response.status;
            await response.arrayBuffer();
          } catch {
            status = 'error';
          }
          samples.push({ ms: performance.now() - t0, status });
        })(),
      );
      await sleep(TRICKLE_MS);
    }
    await Promise.all(inFlight);
    return samples;
  }

  const callers = { answered: 0, refused: 0, other: {}, untestedSeen: 0, ms: [] };
  let stop = false;
  async function caller(hook) {
    const body = JSON.stringify({ trigger: { provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.uid], payload: { action: 'opened' } } } });
    while (!stop) {
      const t0 = performance.now();
      const response = await fetch(`${origin}/api/v1/factories/${hook.factory}/automations/backtest`, { method: 'POST', headers: auth, body });
      const json = await response.json().catch(() => null);
      if (response.status === 200) {
        callers.answered++;
        callers.ms.push(performance.now() - t0);
        if (json.untested > 0) callers.untestedSeen++;
      } else if (response.status === 429) {
        callers.refused++;
        await sleep(50);
      } else {
        callers.other[response.status] = (callers.other[response.status] ?? 0) + 1;
        await sleep(50);
      }
    }
  }

  const baseline = await runTrickle(BASELINE_SECONDS);
  const copiesBefore = await copies();
  const loops = Array.from({ length: CALLERS }, (_, i) => caller(busy[i % busy.length]));
  const loaded = await runTrickle(SECONDS);
  stop = true;
  await Promise.all(loops);
  const copiesAfter = await copies();
  await db.end();

  const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const describe = (samples) => {
    const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
    const statuses = {};
    for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    return `${samples.length} | ${JSON.stringify(statuses)} | ${pct(ms, 50).toFixed(1)} | ${pct(ms, 99).toFixed(1)} | ${ms.at(-1).toFixed(1)}`;
  };
  const backtestMs = callers.ms.sort((a, b) => a - b);
  console.log(
    `\nBacktest under load, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, PostgreSQL, 2 factories × ${ENTRIES} accepted deliveries inserted without copies`,
  );
  console.log('trickle (one delivery every 0.45 s) | deliveries | statuses | p50 ms | p99 ms | max ms');
  console.log(`alone, ${BASELINE_SECONDS} s | ${describe(baseline)}`);
  console.log(`with ${CALLERS} Backtest loops, ${SECONDS} s | ${describe(loaded)}`);
  console.log(
    `Backtest callers: ${callers.answered} answered (p50 ${backtestMs.length ? pct(backtestMs, 50).toFixed(0) : '-'} ms, max ${backtestMs.length ? backtestMs.at(-1).toFixed(0) : '-'} ms; ${callers.untestedSeen} said part of the log was untested), ${callers.refused} refused with 429, other statuses ${JSON.stringify(callers.other)}`,
  );
  console.log(`jsonb copies written by the copy job: ${copiesBefore} when the load began, ${copiesAfter} when it ended (of ${2 * ENTRIES + sent})`);
} finally {
  server?.kill('SIGTERM');
  if (server) await new Promise((resolve) => server.once('exit', resolve));
  await drop();
}
