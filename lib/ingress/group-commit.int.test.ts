import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { accepting, recordAccepted, type AcceptInput } from '@/lib/ingress/record';
import { composeEnvelope } from '@/lib/domain/runs/envelope';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// Group commit on both databases: concurrent deliveries share statements and
// commits, and each still gets exactly what it would have got alone: one
// Accepted per identity (the others Duplicate), its runs, its place in the
// webhook's rate limit, and a failure of its own only.

describe.each(testDatabaseKinds())('group commit of accepted deliveries on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let automationId: string;
  const webhooks: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const db = database.prisma;
    const user = await createUser({ email: 'g@example.com', password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Group', slug: 'group' }, db)).id;
    automationId = (await db.automation.create({ data: { factoryId, name: 'Auto', prompt: 'Do it.' } })).id;
    for (let i = 0; i < 6; i++) {
      webhooks.push((await db.webhook.create({ data: { factoryId, uid: `wh_group_${kind}_${i}`, name: `hook-${i}`, secretName: 'S' }, select: { id: true } })).id);
    }
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const delivery = (webhookId: string, deliveryId: string): AcceptInput => ({
    webhookId,
    factoryId,
    identity: { deliveryId, source: 'service_header' },
    size: 9,
    body: `{"id":"${deliveryId}"}`,
    headers: { 'content-type': 'application/json' },
    remoteAddress: '198.51.100.9',
    runQueueLimit: 10_000,
    runs: [{ automationId, envelope: composeEnvelope({ webhookName: 'hook', webhookUid: 'wh', deliveryId, body: '{}' }) }],
  });

  it('accepts each identity once among concurrent identical deliveries, with its runs, in shared statements', async () => {
    const before = accepting().stats();
    // 6 webhooks x 20 identities, each sent three times at once.
    const inputs = [0, 1, 2].flatMap(() => webhooks.flatMap((webhookId) => Array.from({ length: 20 }, (_, n) => delivery(webhookId, `d-${n}`))));
    const outcomes = await Promise.all(inputs.map((input) => recordAccepted(input)));
    const after = accepting().stats();

    expect(outcomes.filter((o) => !o.limited && o.status === 'accepted')).toHaveLength(120);
    expect(outcomes.filter((o) => !o.limited && o.status === 'duplicate')).toHaveLength(240);
    expect(outcomes.filter((o) => !o.limited && o.status === 'duplicate' && o.runs > 0)).toEqual([]);
    // They shared statements: far fewer batches than deliveries.
    expect(after.items - before.items).toBe(360);
    expect(after.batches - before.batches).toBeLessThan(120);

    const rows = await database.prisma.delivery.findMany({ where: { webhookId: { in: webhooks } }, include: { runs: true } });
    expect(rows).toHaveLength(360);
    for (const webhookId of webhooks) {
      for (let n = 0; n < 20; n++) {
        const same = rows.filter((row) => row.webhookId === webhookId && row.deliveryId === `d-${n}`);
        expect(same.map((row) => row.status).sort()).toEqual(['accepted', 'duplicate', 'duplicate']);
        const acceptedRow = same.find((row) => row.status === 'accepted')!;
        expect(acceptedRow.body).toBe(`{"id":"d-${n}"}`);
        expect(acceptedRow.remoteAddress).toBe('198.51.100.9');
        expect(acceptedRow.runs).toHaveLength(1);
        expect(same.filter((row) => row.status === 'duplicate').every((row) => row.runs.length === 0 && row.body === null)).toBe(true);
      }
    }
    // Every outcome's row ID is the row written for it.
    const ids = new Set(rows.map((row) => row.id));
    expect(outcomes.every((o) => !o.limited && ids.has(o.id))).toBe(true);
  });

  it('stores each delivery’s event type with its entry, the duplicate’s too, and none when it has none', async () => {
    const typed = { ...delivery(webhooks[4]!, 'typed-1'), eventType: 'pull_request.opened' };
    const outcomes = await Promise.all([recordAccepted(typed), recordAccepted(typed), recordAccepted(delivery(webhooks[4]!, 'untyped-1'))]);
    const ids = outcomes.map((outcome) => (outcome.limited ? '' : outcome.id));
    const rows = await database.prisma.delivery.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, eventType: true } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(ids.map((id) => byId.get(id)?.eventType)).toEqual(['pull_request.opened', 'pull_request.opened', null]);
    expect(ids.map((id) => byId.get(id)?.status).sort()).toEqual(['accepted', 'accepted', 'duplicate']);
  });

  it('gives entries and their runs IDs that the database orders as they were written (new index entries at the end)', async () => {
    const written: string[] = [];
    for (let n = 0; n < 5; n++) {
      const outcome = await recordAccepted(delivery(webhooks[5]!, `ordered-${n}`));
      if (outcome.limited) throw new Error('limited');
      written.push(outcome.id);
      // About time passing: the next entry gets a later millisecond in its ID.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const byId = await database.prisma.delivery.findMany({ where: { id: { in: written } }, orderBy: { id: 'asc' }, select: { id: true } });
    expect(byId.map((row) => row.id)).toEqual(written);
    const runs = await database.prisma.run.findMany({ where: { deliveryId: { in: written } }, orderBy: { id: 'asc' }, select: { deliveryId: true } });
    expect(runs.map((run) => run.deliveryId)).toEqual(written);
  });

  it('counts one webhook’s deliveries in shared statements against its rate limit: exactly the budget is accepted', async () => {
    const webhookId = webhooks[5]!;
    const rateLimit = { key: `delivery:wh_group_${kind}_5`, points: 25, durationMs: 60_000 };
    const before = accepting().stats();
    const outcomes = await Promise.all(Array.from({ length: 60 }, (_, n) => recordAccepted({ ...delivery(webhookId, `limited-${n}`), rateLimit })));
    const after = accepting().stats();

    // One webhook's deliveries shared statements (no more one per statement)...
    expect(after.batches - before.batches).toBeLessThan(30);
    // ...and yet the counter counted each: 25 within the budget, the other 35 refused until the window's end.
    const accepted = outcomes.flatMap((o, n) => (o.limited ? [] : [`limited-${n}`]));
    expect(accepted).toHaveLength(25);
    const refused = outcomes.filter((o) => o.limited);
    expect(refused).toHaveLength(35);
    expect(refused.every((o) => o.retryAfterSeconds >= 59 && o.retryAfterSeconds <= 60)).toBe(true);
    const counter = await database.prisma.$queryRawUnsafe<{ points: number }[]>(`SELECT "points" FROM "rate_limits" WHERE "key" = $1`, rateLimit.key);
    expect(counter).toEqual([{ points: 60 }]);
    const written = await database.prisma.delivery.findMany({ where: { webhookId, deliveryId: { startsWith: 'limited-' } }, include: { runs: true } });
    expect(written.map((row) => row.deliveryId).sort()).toEqual(accepted.sort());
    expect(written.every((row) => row.status === 'accepted' && row.runs.length === 1)).toBe(true);
  });

  it('fails only the delivery that cannot be written when it shares a batch with others', async () => {
    const good = webhooks.map((webhookId) => delivery(webhookId, 'after-failure'));
    // A webhook that does not exist: its entry violates the foreign key and fails the whole statement.
    const bad = delivery('wh_missing', 'after-failure');
    // The first deliveries go out alone (as many as batches may run at once); the rest, the bad one included, wait and share one.
    const settled = await Promise.allSettled([delivery(webhooks[0]!, 'first'), ...good, bad].map((input) => recordAccepted(input)));
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', ...good.map(() => 'fulfilled'), 'rejected']);
    const written = await database.prisma.delivery.findMany({ where: { deliveryId: 'after-failure' }, include: { runs: true } });
    expect(written.map((row) => [row.webhookId, row.status, row.runs.length]).sort()).toEqual(webhooks.map((webhookId) => [webhookId, 'accepted', 1]).sort());
  });
});
