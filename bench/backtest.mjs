// Backtest benchmark: `node bench/backtest.mjs`.
//
// Fills one webhook's log on PostgreSQL with 600,000 accepted deliveries (a
// week at the delivery rate limit), realistic 1-4 KB GitHub pull request and
// Stripe event bodies generated server-side with generate_series, each with
// its jsonb copy as housekeeping writes it (lib/domain/deliveries/body-json.ts,
// lib/ingress/filters/sql.ts: jsonbCopyOf). Then times Backtest itself
// (backtestTrigger, as the API and the dashboard call it, in a child process:
// bench/backtest-measure.ts) for a few representative filters, and prints the
// median and worst of several runs with the counts, and the storage the copies
// take.
//
// Settings (environment): BENCH_DATABASE_URL (a PostgreSQL server where a
// database may be created; default TEST_DATABASE_URL or
// postgresql://postgres@127.0.0.1:5432/postgres), BENCH_ENTRIES (default
// 600000), BENCH_RUNS (default 5), BENCH_LOCK (a lock file shared with other
// work on the machine: the fill runs under a shared flock, the timings under an
// exclusive one), BENCH_KEEP (keep the database afterwards), BENCH_REUSE (the
// name of a database a previous BENCH_KEEP run filled: time it again without
// filling; drop it yourself).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { BODY, COPY } from './bodies.mjs';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 600_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const lockFile = process.env.BENCH_LOCK;
const log = (line) => console.error(`[bench] ${line}`);

function run(command, args, env = {}, input) {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout.trim();
}
const cli = (env, args, input) => run(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'cli/tripline.ts', ...args], env, input);

/** Holds BENCH_LOCK (flock -s or -x) until the returned function is called; without BENCH_LOCK, nothing. */
async function hold(mode) {
  if (!lockFile) return async () => {};
  const child = spawn('flock', [mode, lockFile, 'sh', '-c', 'echo locked; cat > /dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`flock exited with ${code}`)));
  });
  return async () => {
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
  };
}

const reuse = process.env.BENCH_REUSE;
const name = reuse ?? `tripline_bench_backtest_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
if (!reuse) await admin.query(`CREATE DATABASE "${name}"`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-bench-backtest-'));
const env = {
  DATABASE_URL: url.toString(),
  TRIPLINE_DATA_DIR: dataDir,
  TRIPLINE_BASE_URL: 'http://localhost:3796',
  TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
  TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
  NEXT_TELEMETRY_DISABLED: '1',
};

const filters = [
  ['equality', { action: 'opened' }],
  ['in', { type: { in: ['invoice.paid', 'invoice.payment_failed'] } }],
  ['not_in', { sender: { type: { not_in: ['Bot'] } } }],
  ['exists', { pull_request: { merged_by: { exists: true } } }],
  ['nested', { pull_request: { draft: false, base: { ref: 'main' } }, action: ['opened', 'reopened'] }],
  ['array of objects', { pull_request: { labels: { name: 'bug' } } }],
  ['no match', { action: 'deleted' }],
  ['all match', { data: { exists: false } }],
  ['no filter', null],
];

try {
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  let release = await hold('-s');
  if (!reuse) {
    cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
    const uid = /uid: (\S+)/.exec(cli(env, ['webhook', 'create', '--factory', 'bench', '--name', 'busy']))[1];
    const { rows } = await db.query('SELECT id FROM "Webhook" WHERE uid = $1', [uid]);
    const webhookId = rows[0].id;
    log(`inserting ${ENTRIES} accepted deliveries with their jsonb copies`);
    const started = Date.now();
    const STEP = 50_000;
    for (let from = 1; from <= ENTRIES; from += STEP) {
      await db.query(
        `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers")
         SELECT 'dl_bench' || lpad(n::text, 8, '0'), $1, 'evt_' || n, 'service_header', 'accepted', octet_length(b::text),
                now() - ((${ENTRIES} - n) || ' seconds')::interval, b::text, '{"content-type":"application/json"}'::jsonb
           FROM generate_series($2::int, $3::int) AS n, LATERAL (SELECT ${BODY} AS b) body`,
        [webhookId, from, Math.min(from + STEP - 1, ENTRIES)],
      );
      await db.query(
        `INSERT INTO "DeliveryJson" ("deliveryId", "webhookId", "receivedAt", "json")
         SELECT d."id", d."webhookId", d."receivedAt", ${COPY}
           FROM "Delivery" d, LATERAL (SELECT d."body"::jsonb AS b) body
          WHERE d."id" BETWEEN 'dl_bench' || lpad($1::text, 8, '0') AND 'dl_bench' || lpad($2::text, 8, '0')`,
        [from, Math.min(from + STEP - 1, ENTRIES)],
      );
    }
    // Every body has its copy: the copy job's cursor (lib/domain/deliveries/body-json.ts) moves past them.
    await db.query(`UPDATE "InstanceSetting" SET "value" = now()::timestamp(3)::text WHERE "key" = 'backtest.copiedThrough'`);
    await db.query('VACUUM ANALYZE "Delivery"');
    await db.query('VACUUM ANALYZE "DeliveryJson"');
    log(`inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const [sizes] = (
    await db.query(
      `SELECT count(*) AS entries, avg(octet_length(d.body))::int AS body_bytes, avg(pg_column_size(d.body))::int AS body_stored, avg(pg_column_size(c."json"))::int AS copy_stored,
              pg_total_relation_size('"Delivery"') AS log_total, pg_total_relation_size('"DeliveryJson"') AS copies_total,
              (SELECT current_setting('default_toast_compression')) AS default_compression,
              (SELECT attcompression FROM pg_attribute WHERE attrelid = '"DeliveryJson"'::regclass AND attname = 'json') AS copy_compression
         FROM "Delivery" d JOIN "DeliveryJson" c ON c."deliveryId" = d."id" JOIN "Webhook" w ON w."id" = d."webhookId" WHERE w."name" = 'busy'`,
    )
  ).rows;
  await db.end();
  await release();

  release = await hold('-x');
  const measured = run(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'bench/backtest-measure.ts', url.toString(), String(RUNS), JSON.stringify(filters)], env);
  await release();
  const results = measured.split('\n').map((line) => JSON.parse(line));

  console.log(`\nBacktest benchmark, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, PostgreSQL, ${sizes.entries} accepted deliveries in one webhook's log`);
  console.log(
    `body: ${sizes.body_bytes} bytes of JSON on average, ${sizes.body_stored} stored; jsonb copy: ${sizes.copy_stored} stored (${sizes.copy_compression === 'l' ? 'lz4' : `default ${sizes.default_compression}`}); with indexes and TOAST: Delivery ${Math.round(Number(sizes.log_total) / 2 ** 20)} MiB, DeliveryJson ${Math.round(Number(sizes.copies_total) / 2 ** 20)} MiB`,
  );
  console.log('filter | as JSON | would trigger | listed | median ms | worst ms');
  for (const r of results) console.log(`${r.label} | ${r.filter} | ${r.counted} | ${r.listed} | ${r.medianMs} | ${r.worstMs}`);
} finally {
  if (process.env.BENCH_KEEP || reuse) log(`kept database ${name}`);
  else await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
