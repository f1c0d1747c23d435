import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDayPartitions, KEPT_BUCKET, todayBucketSql } from '@/lib/deliveries/partitions';
import { pruneDeliveries } from '@/lib/deliveries/retention';
import { createFactory } from '@/lib/factories/service';
import { replayDelivery } from '@/lib/runs/replay';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/lib/testing/databases';
import { createUser } from '@/lib/users/service';

const DAY = 24 * 60 * 60 * 1000;
const day = (at: Date) => at.toISOString().slice(0, 10);
const keptBucket = new Date(`${KEPT_BUCKET}T00:00:00Z`);

describe.each(testDatabaseKinds())('the delivery log by day on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let busy: string;
  let quiet: string;
  // The log's days run from 10 days before `now` to `now`'s day.
  const now = new Date('2026-11-23T12:00:00Z');
  const first = new Date(now.getTime() - 10 * DAY);

  const partitions = async (table: string) =>
    (
      await database.prisma.$queryRawUnsafe<{ name: string }[]>(
        `SELECT c."relname" AS "name" FROM pg_inherits i JOIN pg_class c ON c."oid" = i."inhrelid" WHERE i."inhparent" = to_regclass($1) ORDER BY 1`,
        `"${table}"`,
      )
    ).map((row) => row.name);
  // Identities and copies whose entry is gone: no foreign key deletes them, the code must.
  const orphans = async () =>
    (
      await database.prisma.$queryRawUnsafe<{ identities: number; copies: number }[]>(
        `SELECT (SELECT count(*) FROM "DeliveryIdentity" i WHERE NOT EXISTS (SELECT 1 FROM "Delivery" d WHERE d."id" = i."acceptedId"))::int AS "identities",
                (SELECT count(*) FROM "DeliveryJson" c WHERE NOT EXISTS (SELECT 1 FROM "Delivery" d WHERE d."id" = c."deliveryId" AND d."bucket" = c."bucket"))::int AS "copies"`,
      )
    )[0];
  const tables = async (pattern: string) =>
    (await database.prisma.$queryRawUnsafe<{ name: string }[]>(`SELECT "relname" AS "name" FROM pg_class WHERE "relname" LIKE $1 AND "relkind" = 'r' ORDER BY 1`, pattern)).map((row) => row.name);

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const db = database.prisma;
    const user = await createUser({ email: 'a@example.com', password: 'a long enough password' }, db);
    const factory = await createFactory(user.id, { name: 'Factory', slug: 'partitions' }, db);
    factoryId = factory.id;
    const webhook = async (name: string) => (await db.webhook.create({ data: { factoryId, uid: `wh_${name}`, name, secretName: 'S' }, select: { id: true } })).id;
    busy = await webhook('busy');
    quiet = await webhook('quiet');
    expect(await ensureDayPartitions(db, 11, day(first))).toHaveLength(11);

    // busy: 12 entries a day, in each day's partition, every other one accepted (with its identity and jsonb copy).
    const rows = [];
    for (let d = 0; d <= 10; d++) {
      for (let i = 0; i < 12; i++) {
        const receivedAt = new Date(Date.parse(`${day(new Date(first.getTime() + d * DAY))}T00:00:00Z`) + i * 2 * 60 * 60 * 1000);
        rows.push({ id: `busy-${d}-${String(i).padStart(2, '0')}`, receivedAt, accepted: i % 2 === 0, webhookId: busy });
      }
    }
    // quiet: 3 accepted entries, 9 days old: past the window, but among its newest 50.
    for (let i = 0; i < 3; i++) rows.push({ id: `quiet-${i}`, receivedAt: new Date(first.getTime() + DAY + i * 60_000), accepted: true, webhookId: quiet });
    await db.delivery.createMany({
      data: rows.map((r) => ({
        id: r.id,
        bucket: new Date(`${day(r.receivedAt)}T00:00:00Z`),
        webhookId: r.webhookId,
        deliveryId: `evt-${r.id}`,
        identitySource: 'service_header' as const,
        status: r.accepted ? ('accepted' as const) : ('rejected_auth' as const),
        size: 2,
        receivedAt: r.receivedAt,
        body: r.accepted ? '{"n":1}' : null,
      })),
    });
    const accepted = rows.filter((r) => r.accepted);
    await db.deliveryIdentity.createMany({
      data: accepted.map((r) => ({ webhookId: r.webhookId, deliveryId: `evt-${r.id}`, acceptedId: r.id })),
    });
    await db.deliveryJson.createMany({
      data: accepted.map((r) => ({ deliveryId: r.id, bucket: new Date(`${day(r.receivedAt)}T00:00:00Z`), webhookId: r.webhookId, receivedAt: r.receivedAt, json: { n: 1 } })),
    });
  });
  afterAll(() => database?.drop());

  it('keeps each day in a partition of its own, for the log and for its jsonb copies', async () => {
    const log = await partitions('Delivery');
    expect(log).toContain('Delivery_kept');
    expect(log).toContain(`Delivery_p${day(first).replaceAll('-', '')}`);
    expect(log.filter((name) => name.startsWith('Delivery_p'))).toHaveLength(11);
    expect((await partitions('DeliveryJson')).filter((name) => name.startsWith('DeliveryJson_p'))).toHaveLength(11);
    const [counts] = await database.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS "n" FROM "Delivery_p${day(first).replaceAll('-', '')}"`);
    expect(counts!.n).toBe(12);
    // Made once: a second pass finds them.
    expect(await ensureDayPartitions(database.prisma, 11, day(first))).toEqual([]);
  });

  it("writes a new entry into today's partition when it exists, else into the kept one", async () => {
    const db = database.prisma;
    const insert = (id: string) =>
      db.$executeRawUnsafe(
        `INSERT INTO "Delivery" ("id", "bucket", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt")
         VALUES ($1, ${todayBucketSql}, $2, $1, 'request_id', 'rejected_auth', 0, now())`,
        id,
        busy,
      );
    const where = async (id: string) =>
      (await db.$queryRawUnsafe<{ table: string }[]>(`SELECT tableoid::regclass::text AS "table" FROM "Delivery" WHERE "id" = $1`, id))[0]!.table;
    const [{ today }] = await db.$queryRawUnsafe<[{ today: string }]>(`SELECT to_char(CURRENT_DATE, 'YYYYMMDD') AS "today"`);
    const todays = await tables(`Delivery_p${today}`);
    if (todays.length === 0) {
      await insert('before-today');
      expect(await where('before-today')).toBe('"Delivery_kept"');
    }
    expect(await ensureDayPartitions(db)).toHaveLength(todays.length === 0 ? 3 : 2);
    await insert('today');
    expect(await where('today')).toBe(`"Delivery_p${today}"`);
    await db.delivery.deleteMany({ where: { id: { in: ['before-today', 'today'] } } });
  });

  it('drops the days entirely past the window, keeping a quiet webhook’s newest entries with their identities and copies', async () => {
    const db = database.prisma;
    // The cutoff is 7 days before now: the 3 days before the cutoff's day are past it entirely.
    const removed = await pruneDeliveries(db, now, { restRatio: 0 });
    const gone = [0, 1, 2].map((d) => day(new Date(first.getTime() + d * DAY)).replaceAll('-', ''));
    expect(removed).toBe(3 * 12);
    for (const name of gone) {
      expect(await tables(`Delivery_p${name}`)).toEqual([]);
      expect(await tables(`DeliveryJson_p${name}`)).toEqual([]);
    }
    // The cutoff's own day stays whole until it is all past (entries are kept 7 to 8 days).
    expect(await db.delivery.count({ where: { webhookId: busy } })).toBe(8 * 12);
    expect(await db.delivery.count({ where: { webhookId: busy, receivedAt: { lt: new Date(now.getTime() - 7 * DAY) } } })).toBe(6);
    expect(await db.deliveryIdentity.count({ where: { webhookId: busy } })).toBe(8 * 6);
    expect(await db.deliveryJson.count({ where: { webhookId: busy } })).toBe(8 * 6);

    const ids = ['quiet-0', 'quiet-1', 'quiet-2'];
    expect(await db.delivery.findMany({ where: { webhookId: quiet }, select: { id: true, bucket: true }, orderBy: { id: 'asc' } })).toEqual(ids.map((id) => ({ id, bucket: keptBucket })));
    expect(await db.deliveryIdentity.findMany({ where: { webhookId: quiet }, select: { acceptedId: true }, orderBy: { acceptedId: 'asc' } })).toEqual(ids.map((acceptedId) => ({ acceptedId })));
    expect(await db.deliveryJson.findMany({ where: { webhookId: quiet }, select: { deliveryId: true, bucket: true }, orderBy: { deliveryId: 'asc' } })).toEqual(
      ids.map((deliveryId) => ({ deliveryId, bucket: keptBucket })),
    );
    expect(await orphans()).toEqual({ identities: 0, copies: 0 });
    expect(await pruneDeliveries(db, now, { restRatio: 0 })).toBe(0);
  });

  it('moves an entry to the kept partition with its copy when a replay starts runs for it, and keeps it while a run is', async () => {
    const db = database.prisma;
    const automation = await db.automation.create({ data: { factoryId, name: 'On busy', prompt: 'Go.' } });
    await db.webhookTrigger.create({ data: { automationId: automation.id, position: 0, webhookUid: 'wh_busy' } });
    // An entry of the oldest day left, far from busy's 50 newest.
    const id = `busy-3-00`;
    const result = await replayDelivery(factoryId, 'wh_busy', id, { email: 'a@example.com' }, db);
    expect(result.started).toHaveLength(1);
    expect(await db.delivery.findFirstOrThrow({ where: { id }, select: { bucket: true } })).toEqual({ bucket: keptBucket });
    expect(await db.deliveryJson.findMany({ where: { deliveryId: id }, select: { bucket: true } })).toEqual([{ bucket: keptBucket }]);
    expect(await db.run.count({ where: { deliveryId: id } })).toBe(1);

    // Ten days on, every day left goes but busy's 50 newest entries (days 6 to 10) and the replayed one, which a run reads.
    const later = new Date(now.getTime() + 10 * DAY);
    expect(await pruneDeliveries(db, later, { restRatio: 0 })).toBe(8 * 12 - 50 - 1);
    expect(await db.delivery.count({ where: { webhookId: busy } })).toBe(51);
    expect(await db.deliveryIdentity.count({ where: { acceptedId: id } })).toBe(1);
    // Every day of the test's log is gone; today's and the next days' (made above) stay.
    expect((await tables('Delivery_p%')).filter((name) => name <= `Delivery_p${day(now).replaceAll('-', '')}`)).toEqual([]);
    expect(await orphans()).toEqual({ identities: 0, copies: 0 });

    // Once its run is gone, the kept partition's row prune takes it, with its identity and its copy.
    await db.run.deleteMany({ where: { deliveryId: id } });
    expect(await pruneDeliveries(db, later, { restRatio: 0 })).toBe(1);
    expect(await db.delivery.count({ where: { id } })).toBe(0);
    expect(await db.deliveryIdentity.count({ where: { acceptedId: id } })).toBe(0);
    expect(await db.deliveryJson.count({ where: { deliveryId: id } })).toBe(0);
    expect(await orphans()).toEqual({ identities: 0, copies: 0 });
  });
});
