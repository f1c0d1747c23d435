// How long the embedded database's hourly VACUUM (ANALYZE) holds its one
// connection (lib/platform/db/vacuum.ts): `npx tsx --conditions=react-server
// bench/embedded-vacuum.ts [entries]` (default 100,000).
//
// A PGlite data folder (on disk, as `npm start` keeps it) gets the app's
// migrations and one webhook whose log holds `entries` accepted deliveries of
// ~1.8 KB spread over 8 days, with their identity rows and the search index
// (built after the fill: inserting them one by one through the index would
// take most of an hour). Then, as the hourly job does: a first VACUUM (ANALYZE)
// of the fresh fill (not the steady state), an hour of new entries, retention
// prunes the oldest hour, and the VACUUM after it and an ANALYZE (once a day)
// are timed; then a whole expired day is pruned (a server that was stopped for
// a day) and the VACUUM after it timed too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@/lib/platform/db';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { vacuumEmbedded } from '@/lib/platform/db/vacuum';
import { pruneDeliveries } from '@/lib/domain/deliveries/retention';
import { SEARCH_INDEX } from '@/lib/domain/deliveries/search-index';

const entries = Number(process.argv[2] ?? 100_000);
const DAY = 86_400_000;
const span = 8 * DAY;
const step = span / entries; // ms between entries
const now = new Date('2026-06-09T00:00:00Z');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-bench-vacuum-'));
const database = openDatabase({ kind: 'embedded', dataDir });
const pglite = database.adapter.pglite!;
const log = (text: string) => console.log(`[vacuum ${new Date().toISOString().slice(11, 19)}] ${text}`);
const timed = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  const result = await work();
  log(`${label}: ${((performance.now() - started) / 1000).toFixed(2)} s`);
  return result;
};
const size = async () => (await pglite.query<{ size: string }>(`SELECT pg_size_pretty(pg_database_size(current_database())) AS size`)).rows[0]!.size;

/** Accepted entries (and identity rows) number `from` to `to`, `step` ms apart from `start`: GitHub-like pushes of ~1.8 KB. */
const fill = (from: number, to: number, start: Date) =>
  pglite.query(
    `WITH d AS (
       INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body")
       SELECT 'e' || lpad(g::text, 9, '0'), 'wh', 'd-' || g, 'service_header', 'accepted', 1800,
              $1::timestamptz + (g - $2) * $4 * interval '1 millisecond',
              '{"ref":"refs/heads/main","after":"' || md5(g::text) || '","repository":{"full_name":"acme-corp/service-' || (g % 97) || '"},"commits":[' ||
              (SELECT string_agg('{"id":"' || md5(g::text || i) || '","message":"Update ' || md5(i::text || g) || '","author":{"name":"dev-' || (g % 31) || '"}}', ',') FROM generate_series(1, 12) AS i) || ']}'
         FROM generate_series($2::int, $3::int) AS g
       RETURNING "id", "deliveryId"
     )
     INSERT INTO "DeliveryIdentity" ("webhookId", "deliveryId", "acceptedId") SELECT 'wh', "deliveryId", "id" FROM d`,
    [start, from, to, step],
  );

try {
  await applyPendingMigrations(database.adapter);
  await pglite.exec(`
    INSERT INTO "Factory" ("id", "slug", "name", "updatedAt") VALUES ('f', 'bench', 'Bench', now());
    INSERT INTO "Webhook" ("id", "factoryId", "uid", "name", "secretName", "updatedAt") VALUES ('wh', 'f', 'wh_bench', 'hook', 'S', now());`);
  const indexDdl = (await pglite.query<{ ddl: string }>(`SELECT pg_get_indexdef(to_regclass($1)) AS ddl`, [`"${SEARCH_INDEX}"`])).rows[0]!.ddl;
  await pglite.exec(`DROP INDEX "${SEARCH_INDEX}"`);
  const start = new Date(now.getTime() - span);
  await timed(`${entries} entries over 8 days`, async () => {
    for (let from = 1; from <= entries; from += 10_000) await fill(from, Math.min(entries, from + 9_999), new Date(start.getTime() + (from - 1) * step));
  });
  await timed('the search index', () => pglite.exec(indexDdl));
  await timed('first VACUUM (ANALYZE), of the fresh fill', () => vacuumEmbedded(pglite, { analyze: true }));
  log(`database: ${await size()}`);

  const hour = Math.round(3_600_000 / step);
  await timed(`an hour of new entries (${hour}), through the index`, () => fill(entries + 1, entries + hour, new Date(now.getTime())));
  const pruned = await timed('retention, the oldest hour past 7 days', () => pruneDeliveries(database.prisma, new Date(now.getTime() - DAY + 3_600_000), { restRatio: 0 }));
  log(`pruned ${pruned}`);
  await timed('the hourly VACUUM after it', () => vacuumEmbedded(pglite, { analyze: false }));
  await timed('an ANALYZE (once a day)', () => pglite.exec('ANALYZE'));

  const day = await timed('retention, the whole expired day', () => pruneDeliveries(database.prisma, now, { restRatio: 0 }));
  log(`pruned ${day}`);
  await timed('the VACUUM after it', () => vacuumEmbedded(pglite, { analyze: false }));
  log(`database: ${await size()}`);
} finally {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
