import { afterAll, describe, expect, it } from 'vitest';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { listDeliveries } from '@/lib/domain/deliveries/service';
import { testDatabaseKinds } from '@/tests/support/databases';
import { migrationNamed, migrationsDir, openWebhookBefore } from '@/tests/support/migration-history';

// Migration delivery_body_search (and delivery_search_by_webhook after it) on
// a log written before them: they create pg_trgm and btree_gin and a trigram
// index over every webhook and body already stored. Every entry is still
// there, byte for byte, and found by the log's search afterwards.

const MIGRATION = migrationNamed('_delivery_body_search');
const ENTRIES = 3_000;

describe.each(testDatabaseKinds())('the body search index on a filled log on %s', (kind) => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('keeps every entry and finds them by body text and delivery ID once migrated', async () => {
    const database = await openWebhookBefore(kind, MIGRATION, cleanups);
    const db = database.prisma;
    // Accepted entries with JSON bodies (one in 1,000 mentions "Zebrafish", one
    // has non-ASCII text), and every tenth a rejected request without a body.
    await db.$executeRawUnsafe(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body")
       SELECT 'd' || lpad(n::text, 5, '0'), 'w1', 'evt-' || n, 'service_header',
              (CASE WHEN n % 10 = 0 THEN 'rejected_auth' ELSE 'accepted' END)::"DeliveryStatus", 100,
              timestamp '2026-11-01 00:00:00' + make_interval(secs => n),
              CASE WHEN n % 10 <> 0 THEN
                '{"id":' || n || ',"note":"' || md5(n::text) || CASE WHEN n % 1000 = 1 THEN ' Zebrafish alert' WHEN n = 7 THEN ' café crème' ELSE '' END || '","items":[1,2,3]}'
              END
         FROM generate_series(1, $1::int) AS n`,
      ENTRIES,
    );
    const fingerprint = () =>
      db.$queryRawUnsafe<Array<{ count: number; digest: string }>>(
        `SELECT count(*)::int AS "count", md5(string_agg("id" || ':' || "deliveryId" || ':' || coalesce("body", '-'), '|' ORDER BY "id")) AS "digest" FROM "Delivery"`,
      );
    const before = await fingerprint();

    expect(await applyPendingMigrations(database.adapter, { migrationsDir })).toContain(MIGRATION);
    expect(await fingerprint()).toEqual(before);
    expect(before[0]!.count).toBe(ENTRIES);

    const search = async (q: string, cursor?: string) => listDeliveries('f1', 'wh_1', { q, limit: 2, cursor }, db);
    // A word in three bodies, newest first, paged, in any case.
    const first = await search('zebrafish');
    expect(first.deliveries.map((d) => d.deliveryId)).toEqual(['evt-2001', 'evt-1001']);
    const second = await search('ZEBRAFISH', first.nextCursor!);
    expect(second.deliveries.map((d) => d.deliveryId)).toEqual(['evt-1']);
    expect(second.nextCursor).toBeNull();
    expect((await search('café')).deliveries.map((d) => d.deliveryId)).toEqual(['evt-7']);
    // A delivery ID, including that of a rejected request (it has no body).
    expect((await search('evt-2990')).deliveries.map((d) => d.status)).toEqual(['rejected_auth']);
    expect((await search('quetzal')).deliveries).toEqual([]);
    // Text without 3 letters or digits in a row matches delivery IDs only: "id" is in every body.
    expect((await search('id')).deliveries).toEqual([]);

    // The search can use the new index (the planner picks it whenever a scan would cost more).
    const plan = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('ANALYZE "Delivery"');
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      return tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN SELECT "id" FROM "Delivery" WHERE "webhookId" = 'w1' AND "body" ILIKE '%zebrafish%'`);
    });
    // Both conditions are looked up in the index (one Index Cond), not the webhook checked row by row afterwards.
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('Bitmap Index Scan on "Delivery_search_trgm_idx"');
    expect(text).toMatch(/Index Cond: \(\("webhookId" = 'w1'::text\) AND \(body ~~\* '%zebrafish%'::text\)\)/);
  });
});
