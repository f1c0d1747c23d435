import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneDeliveries } from '@/lib/domain/deliveries/retention';
import { vacuumEmbedded } from '@/lib/platform/db/vacuum';
import { createFactory } from '@/lib/domain/factories/service';
import { createTestDatabase, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// The embedded database has no autovacuum (lib/platform/db/vacuum.ts): retention
// deletes rows, but only a VACUUM lets new rows reuse their space.

describe('the embedded database after retention', () => {
  let database: TestDatabase;
  let webhookId: string;
  const DAY = 24 * 60 * 60 * 1000;
  const now = new Date('2026-06-01T00:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    const db = database.prisma;
    const user = await createUser({ email: 'v@example.com', password: 'a long enough password' }, db);
    const factoryId = (await createFactory(user.id, { name: 'Vacuum', slug: 'vacuum' }, db)).id;
    webhookId = (await db.webhook.create({ data: { factoryId, uid: 'wh_vacuum', name: 'hook', secretName: 'S' }, select: { id: true } })).id;
  });
  afterAll(() => database?.drop());

  /** 3,000 accepted entries of about 1 KB received `daysAgo` days before `now`. */
  const fill = (round: number, daysAgo: number) =>
    database.prisma.$executeRawUnsafe(
      `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body")
       SELECT 'r${round}-' || g, $1, 'd-${round}-' || g, 'service_header', 'accepted', 1000,
              $2::timestamptz + g * interval '1 millisecond', '{"n":' || g || ',"pad":"' || repeat(md5(g::text), 30) || '"}'
         FROM generate_series(1, 3000) AS g`,
      webhookId,
      new Date(now.getTime() - daysAgo * DAY),
    );
  const pages = async () => {
    const [row] = await database.prisma.$queryRawUnsafe<[{ pages: number }]>(`SELECT (pg_relation_size('"Delivery"') / 8192)::int AS "pages"`);
    return row.pages;
  };

  const plannedRows = async () => {
    const [row] = await database.prisma.$queryRawUnsafe<[{ rows: number }]>(`SELECT reltuples::int AS "rows" FROM pg_class WHERE relname = 'Delivery'`);
    return row.rows;
  };

  it('reuses the space of pruned entries after the vacuum, and only then', async () => {
    await fill(1, 9);
    const one = await pages();

    // Without a vacuum, the rows retention deleted leave no room: the table grows.
    expect(await pruneDeliveries(database.prisma, now, { restRatio: 0 })).toBe(3000 - 50);
    await fill(2, 8);
    const grown = await pages();
    expect(grown).toBeGreaterThan(one * 1.8);

    // With it, the next round fits in the space of the one pruned before it.
    expect(await pruneDeliveries(database.prisma, new Date(now.getTime() + DAY), { restRatio: 0 })).toBe(3000);
    await vacuumEmbedded(database.adapter.pglite!, { analyze: false });
    await fill(3, 7);
    expect(await pages()).toBeLessThanOrEqual(grown + 2);
  });

  it('gives the planner statistics once a day', async () => {
    const columnStats = async () => {
      const [row] = await database.prisma.$queryRawUnsafe<[{ n: number }]>(`SELECT count(*)::int AS "n" FROM pg_stats WHERE tablename = 'Delivery'`);
      return row.n;
    };
    expect(await columnStats()).toBe(0);
    await vacuumEmbedded(database.adapter.pglite!, { analyze: true });
    expect(await columnStats()).toBeGreaterThan(5);
    expect(await plannedRows()).toBe(3050);
  });
});
