import { afterAll, describe, expect, it } from 'vitest';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { COPIED_THROUGH_SQL, copyPendingBodies } from '@/lib/domain/deliveries/body-json';
import { testDatabaseKinds } from '@/tests/support/databases';
import { migrationNamed, migrationsDir, openWebhookBefore } from '@/tests/support/migration-history';

// Migration backtest_copy_cursor on a log the previous copy job (which marked
// each delivery) had partly copied: the cursor starts just before the oldest
// body not marked, so the new job copies exactly the bodies that were
// waiting, and no entry or copy is lost.

const MIGRATION = migrationNamed('_backtest_copy_cursor');
const ENTRIES = 400;

describe.each(testDatabaseKinds())('the Backtest copy cursor on a partly copied log on %s', (kind) => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('starts before the oldest body waiting for its copy, and the job copies exactly those', async () => {
    const database = await openWebhookBefore(kind, MIGRATION, cleanups);
    const db = database.prisma;
    // One entry a minute; every tenth a rejected request without a body. The
    // old job had marked and copied the first 300 minutes, except entry 250,
    // and none after (a job that stops part way marks in no order).
    await db.$executeRawUnsafe(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "bodyJsonChecked")
       SELECT 'd' || lpad(n::text, 4, '0'), 'w1', 'evt-' || n, 'service_header',
              (CASE WHEN n % 10 = 0 THEN 'rejected_auth' ELSE 'accepted' END)::"DeliveryStatus", 20,
              timestamp '2026-11-01 00:00:00' + make_interval(mins => n),
              CASE WHEN n % 10 <> 0 THEN '{"n":' || n || '}' END,
              n <= 300 AND n % 10 <> 0 AND n <> 251
         FROM generate_series(1, $1::int) AS n`,
      ENTRIES,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO "DeliveryJson" ("deliveryId", "webhookId", "receivedAt", "json")
       SELECT "id", "webhookId", "receivedAt", "body"::jsonb FROM "Delivery" WHERE "bodyJsonChecked"`,
    );
    const copiedBefore = await db.deliveryJson.count();

    expect(await applyPendingMigrations(database.adapter, { migrationsDir })).toContain(MIGRATION);
    const [cursor] = await db.$queryRawUnsafe<{ at: Date }[]>(`SELECT ${COPIED_THROUGH_SQL} AS "at"`);
    // Entry 251 is the oldest body without a copy: the cursor is a millisecond before it.
    expect(cursor!.at).toEqual(new Date(Date.parse('2026-11-01T00:00:00Z') + 251 * 60_000 - 1));
    expect(await db.delivery.count()).toBe(ENTRIES);
    expect(await db.deliveryJson.count()).toBe(copiedBefore);

    // Waiting: 251, and the bodies of 301-400 (90 of them).
    expect(await copyPendingBodies(db)).toBe(1 + 90);
    const withoutCopy = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS "n" FROM "Delivery" d WHERE d."body" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "DeliveryJson" c WHERE c."deliveryId" = d."id")`,
    );
    expect(withoutCopy[0]!.n).toBe(0);
    expect(await copyPendingBodies(db)).toBe(0);
  });
});
