// Delivery-log benchmark: `node bench/delivery-log.mjs`.
//
// Fills one webhook's log with 100,000 entries on PostgreSQL (a realistic
// mix of statuses, bodies on accepted entries), then times the management
// API's pages over HTTP: the first page, a page 90,000 entries deep (keyset
// cursor), a status-filtered page, and searches by delivery ID and by body
// text. Prints median and worst of several runs.
import { spawn } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { cli, ensureBuild, scratchDatabase, waitForHealthz } from './harness.mjs';

const port = Number(process.env.BENCH_PORT ?? 3795);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);

ensureBuild();

const { url, env, drop } = await scratchDatabase('log', port);

let server;
try {
  cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
  const token = cli(env, ['token', 'create', '--email', 'bench@example.test']);
  const uid = /uid: (\S+)/.exec(cli(env, ['webhook', 'create', '--factory', 'bench', '--name', 'busy']))[1];

  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const { rows } = await db.query('SELECT id FROM "Webhook" WHERE uid = $1', [uid]);
  const webhookId = rows[0].id;
  console.error(`[bench] inserting ${ENTRIES} log entries`);
  const started = Date.now();
  await db.query(
    `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers")
     SELECT 'dl_bench' || lpad(n::text, 8, '0'), $1, 'evt_' || n, 'service_header',
            (CASE WHEN n % 10 = 0 THEN 'rejected_auth' WHEN n % 10 = 1 THEN 'duplicate' ELSE 'accepted' END)::"DeliveryStatus",
            300, now() - (n || ' seconds')::interval,
            CASE WHEN n % 10 > 1 THEN '{"event":"order.' || (n % 7) || '","order":{"id":' || n || ',"note":"' || md5(n::text) || '"}}' END,
            CASE WHEN n % 10 > 1 THEN '{"content-type":"application/json"}'::jsonb END
       FROM generate_series(1, $2) AS n`,
    [webhookId, ENTRIES],
  );
  await db.query('ANALYZE "Delivery"');
  console.error(`[bench] inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const deep = (await db.query(`SELECT id, "receivedAt" FROM "Delivery" WHERE "webhookId" = $1 ORDER BY "receivedAt" DESC, id DESC OFFSET $2 LIMIT 1`, [webhookId, Math.floor(ENTRIES * 0.9)])).rows[0];
  await db.end();
  const deepCursor = Buffer.from(`${deep.receivedAt.toISOString()}|${deep.id}`).toString('base64url');

  server = spawn(process.execPath, ['scripts/serve.mjs'], { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
  const base = `http://localhost:${port}/api/v1/factories/bench/webhooks/${uid}/deliveries`;
  await waitForHealthz(`http://localhost:${port}`, 200);

  const time = async (label, query) => {
    const samples = [];
    let count = 0;
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      const response = await fetch(`${base}${query}`, { headers: { Authorization: `Bearer ${token}` } });
      const body = await response.json();
      if (response.status !== 200) throw new Error(JSON.stringify(body));
      count = body.deliveries.length;
      samples.push(performance.now() - t0);
    }
    samples.splice(0, 2); // warm-up
    samples.sort((a, b) => a - b);
    return { label, entries: count, medianMs: Number(samples[Math.floor(samples.length / 2)].toFixed(1)), worstMs: Number(samples[samples.length - 1].toFixed(1)) };
  };

  const results = [
    await time('first page (50)', '?limit=50'),
    await time('page 90,000 entries deep (cursor)', `?limit=50&cursor=${deepCursor}`),
    await time('status=rejected_auth, first page', '?status=rejected_auth&limit=50'),
    await time('search by delivery ID (q=evt_9000)', '?q=evt_9000&limit=50'),
    await time('search by body text (q=order.3)', '?q=order.3&limit=50'),
    await time('search by rare body text (q=md5 fragment)', '?q=ffffff&limit=50'),
  ];
  console.log(`\nDelivery log benchmark, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, PostgreSQL, ${ENTRIES} entries in one webhook's log`);
  console.log('query | entries returned | median ms | worst ms');
  for (const r of results) console.log(`${r.label} | ${r.entries} | ${r.medianMs} | ${r.worstMs}`);
} finally {
  server?.kill('SIGTERM');
  if (server) await new Promise((r) => server.once('exit', r));
  await drop();
}
