import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneDeliveries, RETENTION_MIN_ENTRIES } from '@/lib/domain/deliveries/retention';
import { createFactory } from '@/lib/domain/factories/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

const DAY = 24 * 60 * 60 * 1000;

describe.each(testDatabaseKinds())('delivery log retention on %s', (kind) => {
  let database: TestDatabase;
  let busy: string;
  let quiet: string;
  let factoryId: string;
  let webhook: (name: string) => Promise<{ id: string }>;
  const now = new Date('2026-11-23T12:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const db = database.prisma;
    const user = await createUser({ email: 'a@example.com', password: 'a long enough password' }, db);
    const factory = await createFactory(user.id, { name: 'Factory', slug: 'retention' }, db);
    factoryId = factory.id;
    webhook = (name: string) =>
      db.webhook.create({ data: { factoryId: factory.id, uid: `wh_${name}`, name, secretName: 'S' }, select: { id: true } });
    busy = (await webhook('busy')).id;
    quiet = (await webhook('quiet')).id;
    // busy: 80 entries, one per hour going back from 10 days ago to 6.7 days ago... spread over 13 days.
    const rows = [];
    for (let i = 0; i < 80; i++) {
      const receivedAt = new Date(now.getTime() - i * 4 * 60 * 60 * 1000); // every 4 h: 13.2 days
      const accepted = i % 2 === 0;
      rows.push({ id: `busy-${i}`, webhookId: busy, deliveryId: `evt-${i}`, identitySource: 'service_header' as const, status: accepted ? ('accepted' as const) : ('rejected_auth' as const), size: 2, receivedAt, body: accepted ? '{}' : null });
    }
    // quiet: 10 old entries only (all older than 7 days, but within its newest 50).
    for (let i = 0; i < 10; i++) {
      rows.push({ id: `quiet-${i}`, webhookId: quiet, deliveryId: `q-${i}`, identitySource: 'body_hash' as const, status: 'accepted' as const, size: 2, receivedAt: new Date(now.getTime() - (30 + i) * DAY), body: '{}' });
    }
    await db.delivery.createMany({ data: rows });
    await db.deliveryIdentity.createMany({
      data: rows.filter((r) => r.status === 'accepted').map((r) => ({ webhookId: r.webhookId, deliveryId: r.deliveryId, acceptedId: r.id })),
    });
    // busy-60 started a run, which reads its payload from the entry.
    const automation = await db.automation.create({ data: { factoryId: factory.id, name: 'A', prompt: 'P' } });
    await db.run.create({ data: { id: 'run-60', factoryId: factory.id, automationId: automation.id, deliveryId: 'busy-60', prompt: 'P', envelope: {}, status: 'succeeded' } });
  });
  afterAll(() => database?.drop());

  it('keeps the newest 50 per webhook, everything from the last 7 days and entries with kept runs, and prunes the rest', async () => {
    const db = database.prisma;
    const pruned = await pruneDeliveries(db, now);
    const kept = await db.delivery.findMany({ where: { webhookId: busy }, select: { id: true, receivedAt: true }, orderBy: { receivedAt: 'desc' } });
    // Entries 0..41 are within 7 days (i * 4 h <= 168 h -> i <= 42); the newest 50 are 0..49; busy-60 has a run.
    expect(kept.length).toBe(RETENTION_MIN_ENTRIES + 1);
    expect(kept.map((k) => k.id)).toEqual([...Array.from({ length: 50 }, (_, i) => `busy-${i}`), 'busy-60']);
    expect(pruned).toBe(29);
    expect(await db.delivery.count({ where: { webhookId: quiet } })).toBe(10);
  });

  it('drops the identities of pruned entries, so dedup covers exactly the retained window', async () => {
    const db = database.prisma;
    const identities = await db.deliveryIdentity.findMany({ where: { webhookId: busy }, select: { deliveryId: true } });
    expect(identities.map((i) => i.deliveryId).sort()).toEqual(
      [...Array.from({ length: 25 }, (_, k) => `evt-${k * 2}`), 'evt-60'].sort(),
    );
  });

  it('prunes an entry once its runs are gone', async () => {
    await database.prisma.run.delete({ where: { id: 'run-60' } });
    expect(await pruneDeliveries(database.prisma, now)).toBe(1);
  });

  it('is a no-op when run again', async () => {
    expect(await pruneDeliveries(database.prisma, now)).toBe(0);
  });

  it('prunes in batches that resume past the entries kept for their runs', async () => {
    const db = database.prisma;
    const { id: webhookId } = await webhook('batched');
    // 120 entries an hour apart, the newest 8 days old: all past the window, the newest 50 kept.
    await db.delivery.createMany({
      data: Array.from({ length: 120 }, (_, i) => ({
        id: `batched-${String(i).padStart(3, '0')}`, webhookId, deliveryId: `b-${i}`, identitySource: 'service_header' as const,
        status: 'accepted' as const, size: 2, receivedAt: new Date(now.getTime() - 8 * DAY - i * 60 * 60 * 1000), body: '{}',
      })),
    });
    const automation = await db.automation.create({ data: { factoryId, name: 'B', prompt: 'P' } });
    for (const i of [60, 61, 62, 63, 64, 65, 66, 67, 100, 119]) {
      await db.run.create({ data: { factoryId, automationId: automation.id, deliveryId: `batched-${String(i).padStart(3, '0')}`, prompt: 'P', envelope: {}, status: 'queued' } });
    }
    // Batches of 7: a batch that deletes fewer (its entries with runs stay) does not end the pruning.
    expect(await pruneDeliveries(db, now, { batch: 7 })).toBe(70 - 10);
    const kept = await db.delivery.findMany({ where: { webhookId }, select: { id: true }, orderBy: { id: 'asc' } });
    expect(kept.map((k) => Number(k.id.slice(-3)))).toEqual([...Array.from({ length: 50 }, (_, i) => i), 60, 61, 62, 63, 64, 65, 66, 67, 100, 119]);
  });

  it('prunes the webhooks together, in batches that split entries received in the same millisecond', async () => {
    const db = database.prisma;
    const ids = [(await webhook('left')).id, (await webhook('right')).id];
    // 90 seconds of both webhooks interleaved, two entries each a second (the same
    // millisecond), 9 days old; then each webhook's newest 50 are all that is kept.
    const received = (s: number) => new Date(now.getTime() - 9 * DAY + s * 1000);
    await db.delivery.createMany({
      data: Array.from({ length: 90 }, (_, s) =>
        ids.flatMap((webhookId, w) =>
          ['a', 'b'].map((k) => ({
            id: `pair-${w}-${String(s).padStart(2, '0')}${k}`, webhookId, deliveryId: `p-${w}-${s}${k}`, identitySource: 'service_header' as const,
            status: 'accepted' as const, size: 2, receivedAt: received(s), body: '{}',
          })),
        ),
      ).flat(),
    });
    // Batches of 3 split the same-millisecond pairs and alternate webhooks.
    expect(await pruneDeliveries(db, now, { batch: 3, restRatio: 0 })).toBe(2 * (180 - 50));
    for (const [w, webhookId] of ids.entries()) {
      const kept = await db.delivery.findMany({ where: { webhookId }, select: { id: true }, orderBy: { id: 'asc' } });
      // The newest 50: seconds 65-89, both entries of each.
      expect(kept.map((k) => k.id)).toEqual(Array.from({ length: 25 }, (_, i) => [`pair-${w}-${65 + i}a`, `pair-${w}-${65 + i}b`]).flat());
    }
  });

  it('lets one instance prune at a time: a pass that starts while another runs does nothing', async () => {
    const db = database.prisma;
    const { id: webhookId } = await webhook('together');
    await db.delivery.createMany({
      data: Array.from({ length: 90 }, (_, i) => ({
        id: `together-${String(i).padStart(2, '0')}`, webhookId, deliveryId: `t-${i}`, identitySource: 'service_header' as const,
        status: 'accepted' as const, size: 2, receivedAt: new Date(now.getTime() - 8 * DAY - i * 60_000), body: '{}',
      })),
    });
    // Two instances' hourly jobs due together (each pass in batches of 4, with rests).
    const passes = await Promise.all([pruneDeliveries(db, now, { batch: 4, restRatio: 1 }), pruneDeliveries(db, now, { batch: 4, restRatio: 1 })]);
    expect(passes.toSorted()).toEqual([0, 40]);
    expect(await db.delivery.count({ where: { webhookId } })).toBe(50);
    // The lease went with the pass: the next hour's pass runs.
    await db.delivery.create({ data: { id: 'together-new', webhookId, deliveryId: 't-new', identitySource: 'service_header', status: 'accepted', size: 2, receivedAt: now, body: '{}' } });
    expect(await pruneDeliveries(db, now, { restRatio: 0 })).toBe(1);
  });
});
