// The stream of a webhook's log: `node bench/log-stream.mjs`.
//
// Decides between the two ways a stream can hear entries other instances
// write (docs/decisions/0072-streams-poll-the-log.md) with figures:
//
// 1. Polling by cursor, as built: two servers on one scratch PostgreSQL
//    database. With 1 and with 25 streams open on instance A (a factory's most): the database
//    transactions per second the idle streams cost (pg_stat_database's
//    xact_commit of the scratch database, minus the same count with no stream
//    open), and the latency from sending a delivery to the event on every
//    stream, for deliveries sent to A (in-process wake-up) and to B (heard at
//    A's next poll).
// 2. What LISTEN/NOTIFY would add to every ingress commit: 8 connections
//    committing one-row inserts for 5 s, with and without a pg_notify in each
//    transaction (PostgreSQL takes a lock for the notification queue at
//    commit, which serialises committing transactions that notified).
//
// Settings: BENCH_DATABASE_URL (or TEST_DATABASE_URL), NEXT_DIST_DIR, BENCH_PORT (3810; B is +1),
// BENCH_DELIVERIES (20 per case).
import { spawn } from 'node:child_process';
import pg from 'pg';
import { cli, distDir, ensureBuild, scratchDatabase } from './harness.mjs';

const port = Number(process.env.BENCH_PORT ?? 3810);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20);
// A factory's most open streams (STREAMS_PER_FACTORY in lib/domain/deliveries/stream.ts).
const MOST_STREAMS = 25;
const log = (line) => console.error(`[bench] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

async function startServer(env, at) {
  // The delivery rate limit raised as an operator would: the bench sends 80 deliveries a minute to one webhook.
  const child = spawn(process.execPath, ['scripts/serve.mjs'], {
    env: { ...process.env, ...env, TRIPLINE_DELIVERY_RATE_LIMIT: '1000000', NEXT_DIST_DIR: distDir, PORT: String(at) },
    stdio: 'ignore',
  });
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`http://localhost:${at}/readyz`)).ok) return child;
    } catch {}
    await sleep(250);
  }
  child.kill('SIGKILL');
  throw new Error(`the server on ${at} did not start`);
}

/** A stream that records when each delivery event (by its body's `n`) arrived. */
async function openStream(url, token, arrivals) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, signal: controller.signal });
  if (!response.ok) throw new Error(`stream: ${response.status} ${await response.text()}`);
  const pump = (async () => {
    let buffer = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (!data || !block.includes('event: delivery')) continue;
          const entry = JSON.parse(data.slice(6));
          const n = JSON.parse(entry.body).n;
          arrivals.get(n)?.push(performance.now());
        }
      }
    } catch {}
  })();
  return { close: async () => (controller.abort(), await pump) };
}

async function commits(db, name) {
  const { rows } = await db.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = $1', [name]);
  return Number(rows[0].n);
}

async function notifyCost(url) {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query('CREATE TABLE IF NOT EXISTS bench_notify (id bigserial PRIMARY KEY, webhook text, at timestamptz DEFAULT now())');
  const run = async (notify) => {
    const clients = await Promise.all(Array.from({ length: 8 }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }));
    let count = 0;
    const until = Date.now() + 5_000;
    await Promise.all(
      clients.map(async (client, i) => {
        while (Date.now() < until) {
          if (notify) await client.query(`WITH w AS (INSERT INTO bench_notify (webhook) VALUES ($1) RETURNING webhook) SELECT pg_notify('tripline_delivery', webhook) FROM w`, [`wh_${i}`]);
          else await client.query('INSERT INTO bench_notify (webhook) VALUES ($1)', [`wh_${i}`]);
          count += 1;
        }
      }),
    );
    await Promise.all(clients.map((client) => client.end()));
    return count / 5;
  };
  const results = [];
  for (const notify of [false, true, false, true]) results.push({ notify, perSecond: await run(notify) });
  await setup.end();
  return results;
}

ensureBuild();
const { url, env, drop } = await scratchDatabase('stream', port);
const name = new URL(url).pathname.slice(1);
const servers = [];
try {
  cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
  // A factory holds at most 25 open streams, an account 10 and a token 5: three members with two tokens each.
  const members = ['bench@example.test', 'bench-2@example.test', 'bench-3@example.test'];
  for (const email of members.slice(1)) {
    cli(env, ['user', 'create', '--email', email, '--password-stdin'], 'bench password 123');
    cli(env, ['member', 'add', '--factory', 'bench', '--email', email, '--role', 'viewer']);
  }
  const tokens = members.flatMap((email) => [cli(env, ['token', 'create', '--email', email]), cli(env, ['token', 'create', '--email', email])]);
  servers.push(await startServer(env, port), await startServer(env, port + 1));
  const a = `http://localhost:${port}`;
  const b = `http://localhost:${port + 1}`;
  const created = await (await fetch(`${a}/api/v1/factories/bench/webhooks`, { method: 'POST', headers: { Authorization: `Bearer ${tokens[0]}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'stream' }) })).json();
  const ingress = new URL(created.ingressUrl).pathname;
  const streamUrl = `${a}/api/v1/factories/bench/webhooks/${created.webhook.uid}/deliveries/stream?status=accepted`;
  const db = new pg.Client({ connectionString: url });
  db.on('error', () => {});
  await db.connect();
  let n = 0;

  const idleRate = async (seconds) => {
    const before = await commits(db, name);
    await sleep(seconds * 1000);
    // Our own two statements count too; the difference between runs cancels them.
    return ((await commits(db, name)) - before) / seconds;
  };
  log('idle, no stream: counting the database transactions of two idle servers for 10 s');
  const baseline = await idleRate(10);
  const rows = [];
  for (const streams of [1, MOST_STREAMS]) {
    const arrivals = new Map();
    const open = [];
    for (let i = 0; i < streams; i++) open.push(await openStream(streamUrl, tokens[Math.floor(i / 5)], arrivals));
    await sleep(1_500);
    log(`${streams} stream(s): idle for 10 s`);
    const idle = await idleRate(10);
    const latency = {};
    for (const [label, origin] of [['A (same instance)', a], ['B (other instance)', b]]) {
      const samples = [];
      for (let i = 0; i < DELIVERIES; i++) {
        n += 1;
        arrivals.set(n, []);
        const sent = performance.now();
        const response = await fetch(`${origin}${ingress}`, { method: 'POST', headers: { Authorization: `Bearer ${created.secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ n }) });
        if (response.status !== 202) throw new Error(`ingress: ${response.status}`);
        const until = Date.now() + 5_000;
        while (arrivals.get(n).length < streams && Date.now() < until) await sleep(2);
        if (arrivals.get(n).length < streams) throw new Error(`delivery ${n} (to ${label}) reached ${arrivals.get(n).length} of ${streams} streams in 5 s`);
        samples.push(...arrivals.get(n).map((at) => at - sent));
        // Spread over the poll interval, so B's deliveries land at every phase of it.
        await sleep(137);
      }
      latency[label] = { p50: quantile(samples, 0.5), p95: quantile(samples, 0.95), max: Math.max(...samples) };
    }
    for (const stream of open) await stream.close();
    rows.push({ streams, perStream: (idle - baseline) / streams, latency });
  }
  log('LISTEN/NOTIFY: commits per second with and without a notification in each transaction');
  const notify = await notifyCost(url);
  await db.end();

  console.log(`\nIdle database load with no stream: ${baseline.toFixed(1)} transactions/s (two idle servers' housekeeping)\n`);
  console.log('| Streams on A | Transactions/s per idle stream | Accept to event, delivery to A: p50 / p95 / max | Delivery to B: p50 / p95 / max |');
  console.log('| --- | --- | --- | --- |');
  const ms = (v) => `${v.toFixed(0)} ms`;
  for (const row of rows) {
    const [la, lb] = [row.latency['A (same instance)'], row.latency['B (other instance)']];
    console.log(`| ${row.streams} | ${row.perStream.toFixed(2)} | ${ms(la.p50)} / ${ms(la.p95)} / ${ms(la.max)} | ${ms(lb.p50)} / ${ms(lb.p95)} / ${ms(lb.max)} |`);
  }
  console.log('\n| One-row insert commits, 8 connections, 5 s | per second |');
  console.log('| --- | --- |');
  for (const result of notify) console.log(`| ${result.notify ? 'with pg_notify' : 'without'} | ${result.perSecond.toFixed(0)} |`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  for (const server of servers) server.kill('SIGTERM');
  await sleep(3_000);
  for (const server of servers) server.kill('SIGKILL');
  await drop();
}
