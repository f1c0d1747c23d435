// Health benchmark: `node bench/health.mjs [fill|measure|drop]` (no argument: all three).
//
// Fills a PostgreSQL database with 20 webhooks of 600,000 retained log
// entries each (12 million entries over the last 7 days: about one a
// second per webhook, a realistic mix of statuses, bodies on accepted
// entries), then times, with the application's own code (lib/domain/health, run
// under tsx like the CLI):
//   - the health job's rollup recomputation: the first run (the whole kept
//     period) and a steady-state run (the recent minutes);
//   - the Webhooks page's data: listWebhooks for the 20 webhooks (secrets,
//     health with the last accepted delivery), which is all the page's
//     server time spends on the log;
//   - the webhook page's chart data (24 h and 7 d);
//   - for comparison, the page's previous query (max(receivedAt) per webhook
//     over the whole log) and health computed from the log alone, without rollups.
// Fill under `flock -s /work/cpu.lock`, measure under `flock -x` on a quiet machine.
// The database's name is kept in .bench-health-db between phases.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
const phase = process.argv[2] ?? 'all';
const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const WEBHOOKS = 20;
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 600_000);
const stateFile = path.join(root, '.bench-health-db');

function run(command, args, env = {}, input) {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, input, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}\n${result.stdout}`);
  return result.stdout.trim();
}
const cli = (env, args, input) => run(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'cli/tripline.ts', ...args], env, input);

function databaseUrl(name) {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function fill() {
  const name = `i13-health-bench-${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const env = {
    DATABASE_URL: databaseUrl(name),
    TRIPLINE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-bench-health-')),
    TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
    TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
  };
  fs.writeFileSync(stateFile, JSON.stringify({ name, env }));
  cli(env, ['setup', '--email', 'bench@example.test', '--password-stdin', '--factory', 'bench'], 'bench password 123');
  for (let i = 0; i < WEBHOOKS; i++) cli(env, ['webhook', 'create', '--factory', 'bench', '--name', `hook-${i}`]);
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  const { rows } = await db.query('SELECT id FROM "Webhook" ORDER BY "createdAt"');
  const spanSeconds = 7 * 24 * 3600;
  const started = Date.now();
  for (const [index, { id }] of rows.entries()) {
    // Entry n is n * (7 days / ENTRIES) old: a steady stream over the whole retention window.
    await db.query(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers")
       SELECT 'dl_' || $3::text || '_' || n, $1, 'evt_' || n, 'service_header',
              (CASE WHEN n % 50 = 0 THEN 'rejected_auth' WHEN n % 97 = 0 THEN 'rejected_invalid_json' WHEN n % 31 = 0 THEN 'duplicate' ELSE 'accepted' END)::"DeliveryStatus",
              180, now() - ((n::float8 * $4::float8 / $2::float8) || ' seconds')::interval,
              CASE WHEN n % 50 <> 0 AND n % 97 <> 0 AND n % 31 <> 0 THEN '{"event":"job.finished","job":{"id":' || n || ',"note":"' || md5(n::text) || '"}}' END,
              CASE WHEN n % 50 <> 0 AND n % 97 <> 0 AND n % 31 <> 0 THEN '{"content-type":"application/json"}'::jsonb END
         FROM generate_series(1, $2) AS n`,
      [id, ENTRIES, String(index), spanSeconds],
    );
    console.error(`[bench] webhook ${index + 1}/${rows.length}: ${ENTRIES} entries (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  await db.query('VACUUM ANALYZE "Delivery"');
  await db.end();
  console.error(`[bench] filled ${name} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

const ms = (t0) => performance.now() - t0;
function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)].toFixed(1), worst: sorted[sorted.length - 1].toFixed(1) };
}
async function repeat(times, fn) {
  await fn(); // warm-up
  const samples = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(ms(t0));
  }
  return summary(samples);
}

async function measure() {
  const { name, env } = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  Object.assign(process.env, env, { TRIPLINE_BASE_URL: 'http://localhost:3999' });
  // The application's own modules, loaded through tsx (this script re-runs itself under it).
  const { prisma } = await import('../lib/platform/db/index.ts');
  const { forgetRollups, refreshRollups } = await import('../lib/domain/health/rollups.ts');
  const { healthOf, deliveryStats } = await import('../lib/domain/health/service.ts');
  const { listWebhooks } = await import('../lib/domain/webhooks/service.ts');
  const factory = await prisma.factory.findFirstOrThrow({ where: { slug: 'bench' } });
  const webhooks = await prisma.webhook.findMany({ where: { factoryId: factory.id }, select: { id: true, createdAt: true, expectedIntervalSeconds: true } });
  const entries = await prisma.delivery.count();
  const results = [];
  await forgetRollups(prisma);

  // Without rollups: the window is read from the log alone.
  results.push(['health of 20 webhooks from the log alone (no rollups yet)', await repeat(20, () => healthOf(webhooks))]);
  let t0 = performance.now();
  await refreshRollups(prisma);
  results.push(['rollup job, first run (8 days of the log)', summary([ms(t0)])]);
  results.push(['rollup job, steady state (the last 10 minutes)', await repeat(10, () => refreshRollups(prisma))]);
  results.push(['health of 20 webhooks (rollups + log since the last run)', await repeat(30, () => healthOf(webhooks))]);
  results.push(['Webhooks page data: listWebhooks (20 webhooks, with health)', await repeat(30, () => listWebhooks(factory.id))]);
  results.push(['chart data, 24 h, one webhook', await repeat(20, () => deliveryStats(webhooks[0].id, '24h'))]);
  results.push(['chart data, 7 d, one webhook', await repeat(20, () => deliveryStats(webhooks[0].id, '7d'))]);
  results.push([
    'before: max(receivedAt) per webhook over the whole log (the page\u2019s previous query)',
    await repeat(5, () => prisma.delivery.groupBy({ by: ['webhookId'], where: { webhookId: { in: webhooks.map((w) => w.id) } }, _max: { receivedAt: true } })),
  ]);
  console.log(`\nHealth benchmark, ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, PostgreSQL, ${WEBHOOKS} webhooks, ${entries.toLocaleString('en')} log entries (${name})`);
  console.log('what | median ms | worst ms');
  for (const [label, r] of results) console.log(`${label} | ${r.median} | ${r.worst}`);
  await prisma.$disconnect();
  process.exit(0);
}

async function drop() {
  const { name, env } = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
  fs.rmSync(env.TRIPLINE_DATA_DIR, { recursive: true, force: true });
  fs.rmSync(stateFile, { force: true });
}

if (phase === 'measure' && !process.execArgv.some((arg) => arg.includes('tsx'))) {
  // Re-run under tsx with the server conditions, as the CLI runs.
  const result = spawnSync(process.execPath, ['--conditions=react-server', '--import', 'tsx', import.meta.filename, 'measure'], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
if (phase === 'fill' || phase === 'all') await fill();
if (phase === 'measure') await measure();
if (phase === 'all') console.log(run(process.execPath, [import.meta.filename, 'measure']));
if (phase === 'drop' || phase === 'all') await drop();
