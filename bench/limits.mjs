// The delivery log at the spec's limits: `node bench/limits.mjs <step>...`
// (npm run bench:limits -- <step>...). Steps, in the order `all` runs them:
//
//   fill       create the PostgreSQL database BENCH_LIMITS_DB (default
//              tripline_bench_limits), set it up through the CLI, create 5
//              webhooks through the API, then generate server-side (INSERT ...
//              SELECT generate_series) 8 days of one delivery a second per
//              webhook: 5 x 691,200 accepted entries with GitHub- and
//              Stripe-like bodies of 1-4 KB, their identity rows, and 3% rejected
//              or duplicate entries. Day 8 is the day retention deletes; days 1-7
//              are the 605,000 entries a webhook keeps at the limit.
//              The log's search index is dropped for the fill (inserting 3.5
//              million bodies into a trigram index would take hours), as on a log
//              filled before the search migrations.
//   copies     write Backtest's jsonb copy of every body (DeliveryJson) and move
//              the copy job's cursor past them, as on a log whose copy job has
//              kept up (part of fill; a step of its own for older fills).
//   index      build the search index as docs/operations.md tells an operator
//              to on a large log (maintenance_work_mem 1 GB), timed; the DDL is
//              read from its migration.
//   migrate    apply pending migrations (`tripline migrate deploy`), timed: the
//              migration of a filled database.
//   search     time the log's searches over HTTP against the real server
//              (delivery ID, a rare word, a common word; first and deep page).
//   ingress    the ingress alone on the full log, 200 deliveries/s in 10 s windows
//              over the 5 webhooks (BENCH_LOAD_WEBHOOKS=20: over a full factory's 20).
//              Each window also reports the server's own view from /metrics:
//              the handler's p99 (as the histogram bucket holding it) and the
//              event loop's delay (p99 and max).
//   retention  the retention job (pruneDeliveries, in its own process) deleting
//              the expired day while the ingress runs at a steady 200/s against
//              the real server on the same database: ingress p99 per 10 s window.
//              Re-generates the expired day first if an earlier run deleted it.
//              BENCH_CHECKPOINT_AT=s adds an immediate CHECKPOINT s seconds in;
//              BENCH_PRUNE_HOURS=1 prunes only the day's oldest hour (the hourly run);
//              BENCH_PRUNE_PGOPTIONS is the prune process's PGOPTIONS (settings for
//              its session only, e.g. --backend_flush_after=256kB).
//   sizes      table and index sizes.
//   drop       drop the database and the state folder.
//
// The fill is reused between runs (state in BENCH_LIMITS_DIR, default
// $TMPDIR/tripline-bench-limits). Run the fill under `flock -s /work/cpu.lock`
// and the measuring steps under `flock -x` on a shared machine.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const dbName = process.env.BENCH_LIMITS_DB ?? 'tripline_bench_limits';
const stateDir = process.env.BENCH_LIMITS_DIR ?? path.join(os.tmpdir(), 'tripline-bench-limits');
const port = Number(process.env.BENCH_PORT ?? 3796);
const distDir = process.env.NEXT_DIST_DIR || '.next';
const WEBHOOKS = 5;
const DAY = 86_400;
const KEPT = 7 * DAY; // one entry a second: 604,800 per webhook in the 7-day window
const FILLED = Number(process.env.BENCH_LIMITS_SECONDS ?? 8 * DAY); // plus the expired day retention deletes
const CHUNK = 48 * 3_600;

const dbUrl = (() => {
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  return url.toString();
})();
const stateFile = path.join(stateDir, 'state.json');
const log = (message) => console.error(`[limits ${new Date().toISOString().slice(11, 19)}] ${message}`);

function run(command, args, env = {}, input) {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, input, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}\n${result.stdout}`);
  return result.stdout.trim();
}
const cli = (env, args, input) => run(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'cli/tripline.ts', ...args], env, input);

function readState() {
  if (!fs.existsSync(stateFile)) throw new Error(`no filled database: run \`node bench/limits.mjs fill\` first (${stateFile} is missing)`);
  return JSON.parse(fs.readFileSync(stateFile, 'utf8'));
}

function serverEnv(state) {
  return {
    DATABASE_URL: dbUrl,
    TRIPLINE_DATA_DIR: path.join(stateDir, 'data'),
    TRIPLINE_BASE_URL: `http://localhost:${port}`,
    TRIPLINE_SECRETS_KEY: state.secretsKey,
    TRIPLINE_AUTH_SECRET: state.authSecret,
    TRIPLINE_DELIVERY_RATE_LIMIT: '1000000',
    TRIPLINE_METRICS_TOKEN: METRICS_TOKEN,
    NEXT_TELEMETRY_DISABLED: '1',
  };
}

// The server's own view of a window, from its /metrics: how long the ingress
// handler took (accepted deliveries, the histogram's bucket holding the 99th
// percentile) and how late the event loop ran (prom-client resets its
// event-loop-delay histogram at every scrape, so a scrape before the window
// starts it afresh). A client p99 well above the handler's is time spent
// outside it: the framework, the event loop, the two shared cores.
const METRICS_TOKEN = 'bench-limits-metrics-token';

async function scrape() {
  const response = await fetch(`http://localhost:${port}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
  const values = new Map();
  for (const line of (await response.text()).split('\n')) {
    const match = /^(\S+) (\S+)$/.exec(line);
    if (match) values.set(match[1], Number(match[2]));
  }
  return values;
}

function serverView(before, after) {
  const bucket = (values, le) => values.get(`tripline_ingress_request_duration_seconds_bucket{le="${le}",outcome="accepted"}`) ?? 0;
  const les = [...after.keys()].flatMap((k) => /_duration_seconds_bucket\{le="([^"]+)",outcome="accepted"\}/.exec(k)?.[1] ?? []);
  const total = bucket(after, '+Inf') - bucket(before, '+Inf');
  const p99 = les.find((le) => bucket(after, le) - bucket(before, le) >= 0.99 * total);
  const ms = (name) => Math.round((after.get(name) ?? NaN) * 1000);
  return { handlerP99AtMostMs: p99 === '+Inf' ? null : Number(p99) * 1000, loopP99Ms: ms('tripline_nodejs_eventloop_lag_p99_seconds'), loopMaxMs: ms('tripline_nodejs_eventloop_lag_max_seconds') };
}

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function startServer(state) {
  if (!fs.existsSync(path.join(distDir, 'BUILD_ID'))) run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { NEXT_TELEMETRY_DISABLED: '1' });
  const server = spawn(process.execPath, ['scripts/serve.mjs'], { env: { ...process.env, ...serverEnv(state), PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 240; i++) {
    if (server.exitCode !== null) throw new Error('the server exited');
    try {
      if ((await fetch(`http://localhost:${port}/readyz`)).ok) return server;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not become ready');
}

async function stopServer(server) {
  if (server.exitCode !== null) return;
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
}

// The bodies: one day's worth (86,400) generated once into a scratch table,
// then reused by every day of every webhook (generating 3.5 million bodies
// one by one would take an hour on 2 cores). Even numbers are GitHub-like
// pushes (1-5 commits), odd ones Stripe-like invoice events (1-5 line
// items): 1-3 KB, 1.8 KB on average. Words: "customer" is in every Stripe body (half the log:
// the common word); "chargeback" in one body in 200 (the medium word);
// "zebrafish" is spliced into one entry in 60,500, about 11 per webhook (the
// rare word). Nothing contains "quetzal".
const POOL = DAY;
const POOL_SQL = `
CREATE UNLOGGED TABLE bench_body_pool AS
WITH s AS (
  SELECT n, md5('pool:' || n) AS h, 1 + (('x' || substr(md5('k' || n), 1, 2))::bit(8)::int % 5) AS k
    FROM generate_series(1, ${POOL}) AS n
)
SELECT n, CASE WHEN n % 2 = 0 THEN
    '{"ref":"refs/heads/' || (ARRAY['main','develop','release/2.4','feature/search'])[1 + n % 4] || '","before":"' || substr(md5(h || 'b'), 1, 40) || '","after":"' || h || '",' ||
    '"repository":{"id":' || (70000000 + n % 997) || ',"name":"service-' || (n % 997) || '","full_name":"acme-corp/service-' || (n % 997) || '","private":true,' ||
    '"owner":{"login":"acme-corp","id":4412093,"type":"Organization","site_admin":false},"html_url":"https://github.com/acme-corp/service-' || (n % 997) || '",' ||
    '"default_branch":"main","topics":["automation","webhooks","' || (ARRAY['billing','search','infra','mobile'])[1 + n % 4] || '"],"visibility":"private"},' ||
    '"pusher":{"name":"dev-' || (n % 313) || '","email":"dev-' || (n % 313) || '@acme.example"},"sender":{"login":"dev-' || (n % 313) || '","id":' || (900000 + n % 313) || ',"type":"User"},' ||
    '"commits":[' || (SELECT string_agg(
      '{"id":"' || md5(h || i) || substr(h, 1, 8) || '","tree_id":"' || md5(h || 't' || i) || '","distinct":true,' ||
      '"message":"' || (ARRAY['Fix','Add','Update','Refactor','Remove','Bump'])[1 + (n + i) % 6] || ' ' ||
        (ARRAY['the parser for nested payloads','login flow redirects','rounding of prorated invoices','cache eviction under load','docs for the ingress','flaky integration tests','dependency versions'])[1 + ('x' || substr(md5(h || 'w' || i), 1, 2))::bit(8)::int % 7] ||
        '\\n\\nSigned-off-by: dev-' || ((n + i) % 313) || '",' ||
      '"timestamp":"2026-11-' || lpad((1 + n % 28)::text, 2, '0') || 'T10:' || lpad((i % 60)::text, 2, '0') || ':00Z","url":"https://github.com/acme-corp/service-' || (n % 997) || '/commit/' || md5(h || i) || '",' ||
      '"author":{"name":"Dev ' || ((n + i) % 313) || '","email":"dev-' || ((n + i) % 313) || '@acme.example","username":"dev-' || ((n + i) % 313) || '"},' ||
      '"added":["src/' || substr(md5(h || 'a' || i), 1, 10) || '.ts"],"removed":[],"modified":["README.md","lib/' || substr(md5(h || 'm' || i), 1, 12) || '.ts"]}', ',')
      FROM generate_series(1, k) AS i) || '],"compare":"https://github.com/acme-corp/service-' || (n % 997) || '/compare/' || substr(h, 1, 12) || '"}'
  ELSE
    '{"id":"evt_' || substr(h, 1, 24) || '","object":"event","api_version":"2024-06-20","created":' || (1790000000 + n) || ',' ||
    '"type":"' || (ARRAY['invoice.paid','invoice.payment_failed','customer.subscription.updated','invoice.finalized'])[1 + n % 4] || '",' ||
    '"data":{"object":{"id":"in_' || substr(md5(h || 'i'), 1, 24) || '","object":"invoice","customer":"cus_' || substr(md5('c' || n % 5000), 1, 14) || '",' ||
    '"customer_email":"customer-' || (n % 5000) || '@shop.example","amount_due":' || (100 * k * (n % 97 + 1)) || ',"amount_paid":' || (100 * k * (n % 97 + 1)) || ',"currency":"usd",' ||
    '"status":"paid","billing_reason":"' || CASE WHEN n % 200 = 1 THEN 'chargeback_reversal' ELSE 'subscription_cycle' END || '","lines":{"object":"list","has_more":false,"data":[' || (SELECT string_agg(
      '{"id":"il_' || substr(md5(h || 'l' || i), 1, 24) || '","object":"line_item","amount":' || (100 * (n % 97 + 1)) || ',"currency":"usd",' ||
      '"description":"1 × ' || (ARRAY['Starter','Pro','Team','Enterprise'])[1 + (n + i) % 4] || ' plan (at $' || (n % 97 + 1) || '.00 / month)",' ||
      '"period":{"start":' || (1790000000 + n) || ',"end":' || (1792592000 + n) || '},"price":{"id":"price_' || substr(md5(h || 'p' || i), 1, 14) || '",' ||
      '"product":"prod_' || substr(md5('prod' || (n + i) % 40), 1, 14) || '","unit_amount":' || (100 * (n % 97 + 1)) || ',"recurring":{"interval":"month","interval_count":1}},' ||
      '"metadata":{"order_id":"' || n || '-' || i || '","region":"' || (ARRAY['eu-west','us-east','ap-south'])[1 + i % 3] || '"}}', ',')
      FROM generate_series(1, k) AS i) || ']},"subscription":"sub_' || substr(md5('s' || n % 5000), 1, 14) || '"}},' ||
    '"livemode":false,"pending_webhooks":1,"request":{"id":"req_' || substr(h, 9, 14) || '","idempotency_key":"' || substr(md5(h || 'k'), 1, 8) || '-' || substr(md5(h || 'k'), 9, 4) || '"}}'
  END AS body
  FROM s;
ALTER TABLE bench_body_pool ADD PRIMARY KEY (n);
ANALYZE bench_body_pool`;

// Every webhook's entries for the seconds (from, to] before the anchor, in one
// statement, in the order a live log receives them: oldest first, the webhooks
// interleaved second by second, so the heap holds them as it would hold real
// traffic (a page carries entries of several webhooks, and a day's entries sit
// together). Each second, each webhook gets an accepted entry with its identity
// row, and every 50th second also a rejected request (every 100th a duplicate
// instead). (MATERIALIZED and OFFSET 0 keep the planner from a hash join, which
// would insert in the body pool's order.) $1 holds the webhooks' short names (for the entries' IDs), $2 their IDs.
const ENTRIES_SQL = `
WITH due AS MATERIALIZED (
  SELECT s.n, w.k, w.webhook_id, r.rejected
    FROM generate_series($3::int + 1, $4::int) AS s(n)
   CROSS JOIN unnest($1::text[], $2::text[]) WITH ORDINALITY AS w(k, webhook_id, o)
   CROSS JOIN (VALUES (false), (true)) AS r(rejected)
   WHERE NOT r.rejected OR s.n % 50 = 0
   ORDER BY s.n DESC, w.o, r.rejected
), ins AS (
  INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers", "detail", "remoteAddress")
  SELECT CASE WHEN d.rejected THEN 'br' ELSE 'bl' END || d.k || lpad(d.n::text, 7, '0'), d.webhook_id,
         CASE WHEN NOT d.rejected OR d.n % 100 = 0 THEN md5('d' || d.k || d.n)::uuid::text ELSE 'req_' || substr(md5('r' || d.k || d.n), 1, 20) END,
         CASE WHEN NOT d.rejected OR d.n % 100 = 0 THEN 'provider_header' ELSE 'request_id' END::"IdentitySource",
         CASE WHEN NOT d.rejected THEN 'accepted' WHEN d.n % 100 = 0 THEN 'duplicate' ELSE 'rejected_auth' END::"DeliveryStatus",
         CASE WHEN d.rejected THEN 1800 ELSE octet_length(b.body) END,
         $5::timestamptz - make_interval(secs => d.n) + CASE WHEN d.rejected THEN interval '500 milliseconds' ELSE interval '0' END,
         CASE WHEN d.rejected THEN NULL WHEN d.n % 60500 = 17 THEN '{"note":"zebrafish regression",' || substr(b.body, 2) ELSE b.body END,
         CASE WHEN d.rejected THEN NULL WHEN b.n % 2 = 0 THEN '{"content-type":"application/json","user-agent":"GitHub-Hookshot/7f3c2a1","x-github-event":"push"}'
              ELSE '{"content-type":"application/json; charset=utf-8","user-agent":"Stripe/1.0 (+https://stripe.com/docs/webhooks)"}' END::jsonb,
         CASE WHEN d.rejected AND d.n % 100 <> 0 THEN 'signature does not match' END,
         CASE WHEN d.rejected THEN '198.51.100.' ELSE '192.0.2.' END || (d.n % 250)
    FROM due d CROSS JOIN LATERAL (SELECT p.n, p.body FROM bench_body_pool p WHERE p.n = 1 + (d.n - 1) % ${POOL} OFFSET 0) b
  RETURNING "id", "webhookId", "deliveryId", "receivedAt", "status"
)
INSERT INTO "DeliveryIdentity" ("webhookId", "deliveryId", "acceptedId", "createdAt")
SELECT "webhookId", "deliveryId", "id", "receivedAt" FROM ins WHERE "status" = 'accepted'`;

// Oldest chunk first, so the heap's order is the log's.
async function fillRange(db, state, from, to) {
  const t0 = Date.now();
  await db.query('DROP TABLE IF EXISTS bench_body_pool');
  await db.query(POOL_SQL);
  log(`${POOL} bodies generated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const names = state.webhooks.map((_, w) => String(w));
  const ids = state.webhooks.map((webhook) => webhook.id);
  for (let end = to; end > from; end -= CHUNK) {
    const start = Math.max(from, end - CHUNK);
    const t1 = Date.now();
    await db.query(ENTRIES_SQL, [names, ids, start, end, state.anchor]);
    log(`${WEBHOOKS} webhooks: seconds ${start}-${end} before the anchor in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  }
  await db.query('DROP TABLE bench_body_pool');
}

async function fill() {
  fs.mkdirSync(stateDir, { recursive: true });
  await withClient(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${dbName}"`);
  });
  const state = {
    secretsKey: randomBytes(32).toString('base64'),
    authSecret: randomBytes(32).toString('base64url'),
    anchor: new Date().toISOString(),
  };
  const env = serverEnv(state);
  log('setting up through the CLI');
  cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
  state.token = cli(env, ['token', 'create', '--email', 'bench@example.test']);
  state.webhooks = [];
  for (let w = 0; w < WEBHOOKS; w++) {
    const out = cli(env, ['webhook', 'create', '--factory', 'bench', '--name', `limits-${w + 1}`]);
    const uid = /uid: (\S+)/.exec(out)[1];
    state.webhooks.push({ uid, path: `/webhooks/w/${uid}`, authorization: `Bearer ${/^secret: (\S+)/m.exec(out)[1]}` });
  }
  const started = Date.now();
  await withClient(dbUrl, async (db) => {
    for (const webhook of state.webhooks) {
      webhook.id = (await db.query('SELECT "id" FROM "Webhook" WHERE "uid" = $1', [webhook.uid])).rows[0].id;
    }
    fs.writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
    await db.query(`DROP INDEX IF EXISTS "${SEARCH_INDEX.name}"`);
    await fillRange(db, state, 0, FILLED);
    await writeCopies(db, state);
    log('VACUUM ANALYZE');
    await db.query('VACUUM ANALYZE "Delivery"');
    await db.query('VACUUM ANALYZE "DeliveryIdentity"');
    await db.query('VACUUM ANALYZE "DeliveryJson"');
  });
  state.fillSeconds = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
  log(`filled in ${state.fillSeconds} s`);
  return { fillSeconds: state.fillSeconds };
}

/**
 * Backtest's copies of the bodies that have none, in the log's order (a day at
 * a time, oldest first, the webhooks interleaved), for the seconds (from, to]
 * before the anchor; then the copy job's cursor.
 */
async function writeCopies(db, state, from = 0, to = FILLED) {
  for (let end = to; end > from; end -= DAY) {
    const start = Math.max(from, end - DAY);
    const t0 = Date.now();
    const { rowCount } = await db.query(
      `INSERT INTO "DeliveryJson" ("deliveryId", "webhookId", "receivedAt", "json")
       SELECT d."id", d."webhookId", d."receivedAt", d."body"::jsonb FROM "Delivery" d
        WHERE d."receivedAt" >= $1::timestamptz - make_interval(secs => $3) AND d."receivedAt" < $1::timestamptz - make_interval(secs => $2)
          AND d."body" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "DeliveryJson" c WHERE c."deliveryId" = d."id")
        ORDER BY d."receivedAt", d."id"`,
      [state.anchor, start, end],
    );
    log(`seconds ${start}-${end} before the anchor: ${rowCount} jsonb copies in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  await db.query(`UPDATE "InstanceSetting" SET "value" = $1::timestamptz::timestamp(3)::text WHERE "key" = 'backtest.copiedThrough'`, [state.anchor]);
}

async function copies() {
  const state = readState();
  await withClient(dbUrl, (db) => writeCopies(db, state));
  return {};
}

// The index as a database migrated to today has it: created by its migration,
// then its storage parameters as the later migrations leave them (the
// pending list's own 256 kB limit reset, so PostgreSQL's 4 MB applies and the
// merge job, not the ingress, merges it). Those migrations ran while the fill
// had no index, and `ALTER INDEX IF EXISTS` did nothing then; without them
// here the bench would measure an index no migrated database has.
const SEARCH_INDEX = (() => {
  const migrations = path.join(root, 'prisma/migrations');
  const migration = (suffix) => {
    const dir = fs.readdirSync(migrations).find((name) => name.endsWith(suffix));
    return fs.readFileSync(path.join(migrations, dir, 'migration.sql'), 'utf8');
  };
  const create = /CREATE INDEX IF NOT EXISTS "([^"]+)"[^;]*;/.exec(migration('_delivery_search_by_webhook'));
  const alters = [...migration('_search_pending_list_per_database').matchAll(/ALTER INDEX IF EXISTS "([^"]+)"[^;]*;/g)].filter((m) => m[1] === create[1]);
  if (!alters.length) throw new Error('the pending-list migration no longer alters the search index: update bench/limits.mjs');
  return { name: create[1], sql: create[0], after: alters.map((m) => m[0]) };
})();

async function index() {
  readState();
  return withClient(dbUrl, async (db) => {
    await db.query(`SET maintenance_work_mem = '1GB'`);
    log(`building ${SEARCH_INDEX.name}`);
    const t0 = Date.now();
    await db.query(SEARCH_INDEX.sql);
    for (const statement of SEARCH_INDEX.after) await db.query(statement);
    const seconds = Number(((Date.now() - t0) / 1000).toFixed(1));
    log(`built in ${seconds} s`);
    return { indexSeconds: seconds };
  });
}

/**
 * A fill whose index was built by an earlier version of the `index` step
 * has the list limit that no migrated database has: set as the migrations
 * would, before measuring the ingress.
 */
async function alignSearchIndex() {
  await withClient(dbUrl, async (db) => {
    const { rows } = await db.query(`SELECT c."reloptions" FROM pg_class c WHERE c."oid" = to_regclass($1)`, [`"${SEARCH_INDEX.name}"`]);
    const own = (rows[0]?.reloptions ?? []).filter((option) => option.startsWith('gin_pending_list_limit='));
    if (!own.length) return;
    log(`${SEARCH_INDEX.name} has ${own.join(', ')}: setting it as the migrations do`);
    for (const statement of SEARCH_INDEX.after) await db.query(statement);
  });
}

async function migrate() {
  const state = readState();
  const t0 = Date.now();
  const out = cli(serverEnv(state), ['migrate', 'deploy']);
  const seconds = Number(((Date.now() - t0) / 1000).toFixed(1));
  log(out);
  return { migrateSeconds: seconds };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function search() {
  const state = readState();
  const webhook = state.webhooks[2];
  const { deepAt, deepId, someDeliveryId } = await withClient(dbUrl, async (db) => {
    const deep = (await db.query(`SELECT "id", "receivedAt" FROM "Delivery" WHERE "webhookId" = $1 AND "receivedAt" < $2::timestamptz - interval '5 days' ORDER BY "receivedAt" DESC, "id" DESC LIMIT 1`, [webhook.id, state.anchor])).rows[0];
    const one = (await db.query(`SELECT "deliveryId" FROM "Delivery" WHERE "id" = $1`, [`bl2${String(400_001).padStart(7, '0')}`])).rows[0];
    return { deepAt: deep.receivedAt, deepId: deep.id, someDeliveryId: one.deliveryId };
  });
  const deepCursor = Buffer.from(`${deepAt.toISOString()}|${deepId}`).toString('base64url');
  const server = await startServer(state);
  try {
    const base = `http://localhost:${port}/api/v1/factories/bench/webhooks/${webhook.uid}/deliveries`;
    const time = async (label, query, samplesWanted = Number(process.env.BENCH_SAMPLES ?? 20)) => {
      const samples = [];
      let count = 0;
      for (let i = 0; i < samplesWanted + 2; i++) {
        const t0 = performance.now();
        const response = await fetch(`${base}${query}`, { headers: { Authorization: `Bearer ${state.token}` } });
        const body = await response.json();
        if (response.status !== 200) throw new Error(JSON.stringify(body));
        count = body.deliveries.length;
        if (i >= 2) samples.push(performance.now() - t0); // two warm-up requests
      }
      samples.sort((a, b) => a - b);
      const r = { label, entries: count, p50: Number(percentile(samples, 50).toFixed(1)), p95: Number(percentile(samples, 95).toFixed(1)), max: Number(samples[samples.length - 1].toFixed(1)) };
      log(`${label}: ${JSON.stringify(r)}`);
      return r;
    };
    const deep = `&cursor=${deepCursor}`;
    return {
      search: [
        await time('first page, no search', '?limit=50'),
        await time('page 5 days deep, no search', `?limit=50${deep}`),
        await time('delivery ID', `?limit=50&q=${someDeliveryId}`),
        await time('rare word "zebrafish" (~11 bodies), first page', '?limit=50&q=zebrafish'),
        await time('rare word "zebrafish", page 5 days deep', `?limit=50&q=zebrafish${deep}`),
        await time('word in no body "quetzal", first page', '?limit=50&q=quetzal'),
        await time('medium word "chargeback" (1 body in 200), first page', '?limit=50&q=chargeback'),
        await time('medium word "chargeback", page 5 days deep', `?limit=50&q=chargeback${deep}`),
        await time('common word "customer" (half the bodies), first page', '?limit=50&q=customer'),
        await time('common word "customer", page 5 days deep', `?limit=50&q=customer${deep}`),
        await time('two-letter search "zz" (delivery IDs only)', '?limit=50&q=zz'),
      ],
    };
  } finally {
    await stopServer(server);
  }
}

/** Puts back the expired day if an earlier retention run deleted it, then checkpoints. */
async function restoreExpiredDay(state) {
  await withClient(dbUrl, async (db) => {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Delivery" WHERE "receivedAt" < $1::timestamptz - interval '7 days'`, [state.anchor]);
    const expected = WEBHOOKS * (DAY + DAY / 50);
    if (rows[0].n < expected) {
      log(`re-generating the expired day (${rows[0].n} of ${expected} entries there)`);
      await db.query(`DELETE FROM "Delivery" WHERE "receivedAt" < $1::timestamptz - interval '7 days'`, [state.anchor]);
      await fillRange(db, state, KEPT, FILLED);
      await writeCopies(db, state, KEPT, FILLED);
      await db.query('ANALYZE "Delivery"');
    }
    // The WAL of what came before (the re-generated day's gigabytes, or the
    // fill and its index) would otherwise bring a checkpoint into the
    // measured prune: write it out before it starts.
    await db.query('CHECKPOINT');
  });
}

/**
 * The webhooks the steady load goes to: the 5 full ones, or with
 * BENCH_LOAD_WEBHOOKS=N (up to a factory's 20) the first N of the bench
 * factory's webhooks, the missing ones created through the management API
 * (once; kept in the state). The full log is the same either way: the spread
 * only changes how many deliveries a second each webhook (and its rate-limit
 * counter, a row every accepted delivery updates) takes: 40 at 5, 10 at 20.
 */
let loadWebhooks = null;
async function loadTargets(state) {
  const wanted = Number(process.env.BENCH_LOAD_WEBHOOKS ?? WEBHOOKS);
  state.extraWebhooks ??= [];
  while (WEBHOOKS + state.extraWebhooks.length < wanted) {
    const response = await fetch(`http://localhost:${port}/api/v1/factories/bench/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${state.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `load-${state.extraWebhooks.length + 1}` }),
    });
    const body = await response.json();
    if (response.status !== 201) throw new Error(`creating a load webhook: ${JSON.stringify(body)}`);
    state.extraWebhooks.push({ path: new URL(body.ingressUrl).pathname, authorization: `Bearer ${body.secret}` });
    fs.writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
  }
  const targets = [...state.webhooks, ...state.extraWebhooks].slice(0, wanted);
  log(`steady load over ${targets.length} webhooks`);
  return targets;
}

/**
 * The ingress at a steady 200 deliveries/s over the load's webhooks
 * (loadTargets), from one bench/load.mjs process that runs until stop(): the
 * same warm process and connections for every window, as a proxy's would be
 * (a process per window started cold on the shared cores, in each window's
 * first second). next() resolves with each 10 s window as it completes, with
 * the server's own view (/metrics) since the previous one.
 */
function steadyLoad() {
  const child = spawn(process.execPath, ['bench/load.mjs', JSON.stringify({ url: `http://localhost:${port}`, targets: loadWebhooks, connections: 20, window: 10, rate: 200 })], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  const waiting = [];
  let buffer = '';
  let exited = null;
  const settle = () => {
    while (waiting.length && (lines.length || exited !== null)) {
      const { resolve, reject } = waiting.shift();
      if (lines.length) resolve(lines.shift());
      else if (exited === 0) resolve(null);
      else reject(new Error(`bench/load.mjs failed (${exited})`));
    }
  };
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
    settle();
  });
  child.once('exit', (code) => {
    exited = code ?? 1;
    settle();
  });
  let before = scrape();
  return {
    /** The next window, or null once the load has stopped and every window has been read. */
    async next() {
      const r = await new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        settle();
      });
      if (!r) return null;
      const after = await scrape();
      const view = serverView(await before, after);
      before = after;
      return { accepted: r.statusCodes?.['202']?.count ?? 0, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, errors: r.errors + r.timeouts, ...(r.errors ? { errorCodes: r.errorCodes } : {}), non2xx: r.non2xx, seconds: r.duration, histogram: r.histogram, ...view };
    },
    /** Stops sending; the windows still in flight can then be read with next(). */
    stop: () => child.stdin.end(),
  };
}

/** The percentiles of every request of several windows together, from their histograms (bench/load.mjs). */
function percentiles(windows) {
  const counts = new Map();
  for (const w of windows) for (const [ms, n] of Object.entries(w.histogram ?? {})) counts.set(Number(ms), (counts.get(Number(ms)) ?? 0) + n);
  const sorted = [...counts].sort((a, b) => a[0] - b[0]);
  const requests = sorted.reduce((sum, [, n]) => sum + n, 0);
  const at = (q) => {
    let seen = 0;
    for (const [ms, n] of sorted) if ((seen += n) >= q * requests) return ms;
    return null;
  };
  return { requests, p50: at(0.5), p99: at(0.99), max: sorted.at(-1)?.[0] ?? null };
}

const withoutHistogram = ({ histogram: _histogram, ...rest }) => rest;

/** A freshly started server's first seconds (JIT, caches) are slower: the load's first 10 s window is not counted. */
async function warmUp(state) {
  loadWebhooks = await loadTargets(state);
  log('warming up: 200/s for 10 s');
  const load = steadyLoad();
  await load.next();
  return load;
}

/** The ingress alone on the full log: 200 deliveries/s in 10 s windows (BENCH_WINDOWS, default 6). */
async function ingress() {
  const state = readState();
  await alignSearchIndex();
  const server = await startServer(state);
  const windows = [];
  try {
    const load = await warmUp(state);
    const count = Number(process.env.BENCH_WINDOWS ?? 6);
    for (let i = 0; i < count; i++) {
      const w = await load.next();
      windows.push(w);
      log(`ingress at 200/s, window ${i + 1}: ${JSON.stringify(withoutHistogram(w))}`);
      if (i === count - 1) load.stop();
    }
    while (await load.next()); // the load has stopped: nothing left to count
    const whole = percentiles(windows);
    log(`all ${whole.requests} requests: p50 ${whole.p50} ms, p99 ${whole.p99} ms, max ${whole.max} ms`);
    return { ingress: { whole, windows: windows.map(withoutHistogram) } };
  } finally {
    await stopServer(server);
  }
}

async function retention() {
  const state = readState();
  await alignSearchIndex();
  await restoreExpiredDay(state);
  const server = await startServer(state);
  const windows = [];
  let pruned;
  try {
    // The job as the server runs it, from its own process; the clock is the fill's anchor,
    // so exactly day 8 is past the window (with BENCH_PRUNE_HOURS=h, h hours into day 8,
    // so only its oldest h hours are: 1 is what the hourly run deletes at the limits).
    // Started and connected before the load (its start-up is not the job's work),
    // told to begin when the alone window has ended.
    const hours = Number(process.env.BENCH_PRUNE_HOURS ?? 24);
    const clock = new Date(new Date(state.anchor).getTime() - (24 - hours) * 3600_000).toISOString();
    const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'bench/limits-prune.ts', clock], {
      env: { ...process.env, ...serverEnv(state), ...(process.env.BENCH_PRUNE_PGOPTIONS ? { PGOPTIONS: process.env.BENCH_PRUNE_PGOPTIONS } : {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const done = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    let finished = false;
    done.then(() => (finished = true));
    await new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => (String(chunk).includes('ready') ? resolve() : process.stderr.write(chunk)));
      done.then((code) => reject(new Error(`the prune process exited before it was ready (${code})`)));
    });
    const load = await warmUp(state);
    log('ingress alone at 200/s, 10 s');
    const alone = await load.next();
    log(`alone: ${JSON.stringify(withoutHistogram(alone))}`);
    const t0 = Date.now();
    child.stdin.end('go\n');
    // BENCH_CHECKPOINT_AT=s: an immediate CHECKPOINT s seconds into the prune, so that
    // a checkpoint (and the full-page images that follow it) falls inside the measure.
    const checkpointAt = process.env.BENCH_CHECKPOINT_AT;
    const checkpoint = checkpointAt
      ? new Promise((r) => setTimeout(r, Number(checkpointAt) * 1000)).then(() => withClient(dbUrl, (db) => db.query('CHECKPOINT'))).then(() => log(`CHECKPOINT at ${checkpointAt} s`))
      : null;
    // Every window that ends while the prune runs, and the one it ends in.
    for (;;) {
      const w = await load.next();
      windows.push(w);
      log(`while pruning: ${JSON.stringify(withoutHistogram(w))}`);
      if (finished) break;
    }
    load.stop();
    while (await load.next()); // after the prune: not counted
    const code = await done;
    await checkpoint;
    if (code !== 0) throw new Error(`the prune process failed (${code})`);
    pruned = { ...JSON.parse(out), wallSeconds: Number(((Date.now() - t0) / 1000).toFixed(1)) };
    log(`pruned: ${JSON.stringify(pruned)}`);
    const whole = percentiles(windows);
    log(`while pruning, all ${whole.requests} requests: p50 ${whole.p50} ms, p99 ${whole.p99} ms, max ${whole.max} ms`);
    return { retention: { alone: withoutHistogram(alone), pruned, whole, windows: windows.map(withoutHistogram), p99Max: Math.max(...windows.map((w) => w.p99)) } };
  } finally {
    await stopServer(server);
  }
}

async function sizes() {
  return withClient(dbUrl, async (db) => {
    const tables = (await db.query(`
      SELECT c.relname AS table, pg_size_pretty(pg_table_size(c.oid)) AS data, pg_size_pretty(pg_indexes_size(c.oid)) AS indexes,
             pg_size_pretty(pg_total_relation_size(c.oid)) AS total, c.reltuples::bigint AS rows
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname IN ('Delivery', 'DeliveryIdentity', 'DeliveryJson', 'Run')`)).rows;
    const indexes = (await db.query(`
      SELECT i.relname AS index, t.relname AS table, pg_size_pretty(pg_relation_size(i.oid)) AS size
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       WHERE t.relname IN ('Delivery', 'DeliveryIdentity', 'DeliveryJson') ORDER BY pg_relation_size(i.oid) DESC`)).rows;
    const database = (await db.query(`SELECT pg_size_pretty(pg_database_size(current_database())) AS size`)).rows[0].size;
    for (const t of tables) log(`${t.table}: ${JSON.stringify(t)}`);
    for (const i of indexes) log(`${i.index}: ${i.size}`);
    log(`database: ${database}`);
    return { sizes: { database, tables, indexes } };
  });
}

async function drop() {
  await withClient(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
  fs.rmSync(stateDir, { recursive: true, force: true });
  return { dropped: dbName };
}

const steps = { fill, copies, index, migrate, search, ingress, retention, sizes, drop };
const wanted = process.argv.slice(2).flatMap((s) => (s === 'all' ? ['fill', 'index', 'migrate', 'search', 'retention', 'sizes'] : [s]));
if (!wanted.length || wanted.some((s) => !steps[s])) {
  console.error(`usage: node bench/limits.mjs <${Object.keys(steps).join('|')}|all>...`);
  process.exit(2);
}
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const results = { at: new Date().toISOString(), machine, database: dbName };
for (const step of wanted) Object.assign(results, await steps[step]());
console.log(JSON.stringify(results, null, 2));
fs.mkdirSync('bench/results', { recursive: true });
const file = path.join('bench/results', `limits-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify(results, null, 2));
console.error(`raw results: ${file}`);
