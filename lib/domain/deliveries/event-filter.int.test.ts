import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { listDeliveriesSchema } from '@/lib/domain/deliveries/schemas';
import { listDeliveries, recentEventTypes } from '@/lib/domain/deliveries/service';
import { createFactory } from '@/lib/domain/factories/service';
import { recordAccepted } from '@/lib/ingress/record';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// The delivery log by event type: an exact type, a pattern with `*` segments
// (the triggers' own rule), combined with status, search and pages; and the
// types the dashboard's filter offers, from the newest entries.

describe.each(testDatabaseKinds())('the delivery log by event type on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  const uid = `wh_types_${kind}`;
  const types = ['pull_request.opened', 'pull_request.closed', 'pull_request_review.submitted', 'push', null, 'pull_request.opened'];

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const db = database.prisma;
    const user = await createUser({ email: 't@example.com', password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Types', slug: 'types' }, db)).id;
    const webhookId = (await db.webhook.create({ data: { factoryId, uid, name: 'hook', secretName: 'S' }, select: { id: true } })).id;
    for (const [n, eventType] of types.entries()) {
      const body = JSON.stringify({ n });
      await recordAccepted({
        webhookId,
        factoryId,
        identity: { deliveryId: `d-${n}`, source: 'service_header' },
        size: body.length,
        body,
        headers: {},
        eventType,
        remoteAddress: null,
        runQueueLimit: 10_000,
        runs: [],
      });
    }
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const ids = async (input: Parameters<typeof listDeliveries>[2]) => (await listDeliveries(factoryId, uid, input)).deliveries.map((d) => d.deliveryId);

  it('filters by an exact type or a pattern; entries without a type never match', async () => {
    expect(await ids({ event: 'pull_request.opened' })).toEqual(['d-5', 'd-0']);
    expect(await ids({ event: 'pull_request.*' })).toEqual(['d-5', 'd-1', 'd-0']);
    expect(await ids({ event: '*' })).toEqual(['d-5', 'd-3', 'd-2', 'd-1', 'd-0']);
    expect(await ids({ event: 'push', status: 'accepted', q: 'd-3' })).toEqual(['d-3']);
    expect(await ids({ event: 'issues' })).toEqual([]);
    const listed = (await listDeliveries(factoryId, uid, { limit: 50 })).deliveries;
    expect(listed.map((d) => d.eventType)).toEqual([...types].reverse());
  });

  it('pages through one type with the cursor', async () => {
    const first = await listDeliveries(factoryId, uid, { event: 'pull_request.*', limit: 2 });
    expect(first.deliveries.map((d) => d.deliveryId)).toEqual(['d-5', 'd-1']);
    const second = await listDeliveries(factoryId, uid, { event: 'pull_request.*', limit: 2, cursor: first.nextCursor! });
    expect(second.deliveries.map((d) => d.deliveryId)).toEqual(['d-0']);
    expect(second.nextCursor).toBeNull();
  });

  it('refuses a filter that is not a pattern, saying why', async () => {
    for (const event of ['pull*', '**', 'a..b', 'x'.repeat(201), 'line\nbreak']) {
      const parsed = listDeliveriesSchema.safeParse({ event });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['event', expect.stringMatching(/^The event type filter is not valid: /)]]);
      await expect(listDeliveries(factoryId, uid, { event })).rejects.toThrow();
    }
  });

  it('offers the types of the newest entries, most frequent first', async () => {
    expect(await recentEventTypes(factoryId, uid)).toEqual([
      { type: 'pull_request.opened', count: 2 },
      { type: 'pull_request.closed', count: 1 },
      { type: 'pull_request_review.submitted', count: 1 },
      { type: 'push', count: 1 },
    ]);
  });
});
