import { afterAll, describe, expect, it } from 'vitest';
import { applyPendingMigrations } from '@/lib/db/migrate';
import { ensureDayPartitions, KEPT_BUCKET } from '@/lib/deliveries/partitions';
import { pruneDeliveries } from '@/lib/deliveries/retention';
import { listDeliveries } from '@/lib/deliveries/service';
import { testDatabaseKinds } from '@/lib/testing/databases';
import { migrationNamed, migrationsDir, openWebhookBefore } from '@/lib/testing/migration-history';

// Migration delivery_log_day_partitions on a log written before it: the log
// and its jsonb copies become partitioned tables whose kept partitions are
// the old tables. Every entry, identity, copy and run is still there and
// still linked, the search finds entries, and new days get partitions.

const MIGRATION = migrationNamed('_delivery_log_day_partitions');
const ENTRIES = 3_000;

describe.each(testDatabaseKinds())('day partitions on a filled log on %s', (kind) => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('keeps every entry, identity, copy and run, linked, in the kept partition', async () => {
    const database = await openWebhookBefore(kind, MIGRATION, cleanups);
    const db = database.prisma;
    // Accepted entries (one in 1,000 mentions "Zebrafish") with identities and
    // copies, every tenth a rejected request, a minute's refused summary, and
    // runs on every hundredth entry; the log ends 10 days ago.
    await db.$executeRawUnsafe(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers")
       SELECT 'd' || lpad(n::text, 5, '0'), 'w1', 'evt-' || n, 'service_header',
              (CASE WHEN n % 10 = 0 THEN 'rejected_auth' ELSE 'accepted' END)::"DeliveryStatus", 100,
              now()::timestamp(3) - interval '10 days' - make_interval(secs => $1::int - n),
              CASE WHEN n % 10 <> 0 THEN '{"id":' || n || ',"note":"' || md5(n::text) || CASE WHEN n % 1000 = 1 THEN ' Zebrafish alert' ELSE '' END || '"}' END,
              CASE WHEN n % 10 <> 0 THEN '{"content-type":"application/json"}'::jsonb END
         FROM generate_series(1, $1::int) AS n`,
      ENTRIES,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail", "refusedCount")
       VALUES ('rf_w1_2026-11-01T00:00', 'w1', 'refused:2026-11-01T00:00Z', 'request_id', 'refused', 0, now() - interval '11 days', '3 requests refused', 3)`,
    );
    await db.$executeRawUnsafe(`INSERT INTO "DeliveryIdentity" ("webhookId", "deliveryId", "acceptedId") SELECT "webhookId", "deliveryId", "id" FROM "Delivery" WHERE "status" = 'accepted'`);
    await db.$executeRawUnsafe(`INSERT INTO "DeliveryJson" ("deliveryId", "webhookId", "receivedAt", "json") SELECT "id", "webhookId", "receivedAt", "body"::jsonb FROM "Delivery" WHERE "body" IS NOT NULL`);
    await db.$executeRawUnsafe(`INSERT INTO "Automation" ("id", "factoryId", "name", "prompt", "updatedAt") VALUES ('a1', 'f1', 'A', 'P', now())`);
    await db.$executeRawUnsafe(
      `INSERT INTO "Run" ("id", "factoryId", "automationId", "deliveryId", "status", "prompt", "envelope")
       SELECT 'r' || "id", 'f1', 'a1', "id", 'succeeded'::"RunStatus", 'P', '{}'::jsonb FROM "Delivery" WHERE "status" = 'accepted' AND right("id", 2) = '01'
       UNION ALL SELECT 'r-orphan', 'f1', 'a1', NULL, 'succeeded'::"RunStatus", 'P', '{}'::jsonb`,
    );

    const fingerprint = () =>
      db.$queryRawUnsafe<Array<{ table: string; count: number; digest: string }>>(
        `SELECT 'log' AS "table", count(*)::int AS "count",
                md5(string_agg(concat_ws(':', "id", "deliveryId", "status", "receivedAt", "body", "headers", "detail", "refusedCount"), '|' ORDER BY "id")) AS "digest" FROM "Delivery"
         UNION ALL SELECT 'identities', count(*)::int, md5(string_agg(concat_ws(':', "webhookId", "deliveryId", "acceptedId"), '|' ORDER BY "acceptedId")) FROM "DeliveryIdentity"
         UNION ALL SELECT 'copies', count(*)::int, md5(string_agg(concat_ws(':', "deliveryId", "receivedAt", "json"), '|' ORDER BY "deliveryId")) FROM "DeliveryJson"
         UNION ALL SELECT 'runs', count(*)::int, md5(string_agg(concat_ws(':', "id", "deliveryId"), '|' ORDER BY "id")) FROM "Run"`,
      );
    const before = await fingerprint();

    expect(await applyPendingMigrations(database.adapter, { migrationsDir })).toContain(MIGRATION);
    expect(await fingerprint()).toEqual(before);
    expect(before.map((row) => row.count)).toEqual([ENTRIES + 1, 2_700, 2_700, 31]);

    // All in the kept partitions, still linked by their plain columns.
    const placed = await db.$queryRawUnsafe<Array<{ table: string; n: number }>>(
      `SELECT tableoid::regclass::text AS "table", count(*)::int AS "n" FROM "Delivery" GROUP BY 1
       UNION ALL SELECT tableoid::regclass::text, count(*)::int FROM "DeliveryJson" GROUP BY 1`,
    );
    expect(placed).toEqual([
      { table: '"Delivery_kept"', n: ENTRIES + 1 },
      { table: '"DeliveryJson_kept"', n: 2_700 },
    ]);
    const linked = await db.$queryRawUnsafe<Array<{ id: string; bucket: string; body: string; identity: string; copy: string }>>(
      `SELECT d."id", d."bucket"::text AS "bucket", d."body", i."deliveryId" AS "identity", c."bucket"::text AS "copy"
         FROM "Run" r JOIN "Delivery" d ON d."id" = r."deliveryId" JOIN "DeliveryIdentity" i ON i."acceptedId" = d."id"
         JOIN "DeliveryJson" c ON c."deliveryId" = d."id" AND c."bucket" = d."bucket"
        WHERE r."id" = 'rd00101'`,
    );
    expect(linked).toEqual([{ id: 'd00101', bucket: KEPT_BUCKET, body: expect.stringContaining('"id":101'), identity: 'evt-101', copy: KEPT_BUCKET }]);

    // The search still finds entries by body and by delivery ID.
    const search = async (q: string) => (await listDeliveries('f1', 'wh_1', { q, limit: 5 }, db)).deliveries.map((d) => d.deliveryId);
    expect(await search('zebrafish')).toEqual(['evt-2001', 'evt-1001', 'evt-1']);
    expect(await search('evt-2990')).toEqual(['evt-2990']);

    // New days get partitions; retention prunes the old log row by row, keeping the 50 newest and those with runs.
    await ensureDayPartitions(db);
    expect(await pruneDeliveries(db, new Date(), { restRatio: 0 })).toBe(ENTRIES + 1 - 50 - 30);
    expect(await db.delivery.count()).toBe(50 + 30);
    expect(await db.deliveryIdentity.count()).toBe(45 + 30);
    expect(await db.deliveryJson.count()).toBe(45 + 30);
    expect(await db.run.count({ where: { deliveryId: { not: null } } })).toBe(30);
  });
});
