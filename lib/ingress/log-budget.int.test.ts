import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/db';
import { createFactory } from '@/lib/factories/service';
import { recordUnauthenticated } from '@/lib/ingress/log-budget';
import { recordRefusal } from '@/lib/ingress/record';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/lib/testing/databases';
import { createUser } from '@/lib/users/service';

// The budget of unauthenticated log entries (TRIPLINE_UNAUTHENTICATED_LOG_LIMIT,
// default 60 a minute per webhook) on both databases: within it each request
// writes its entry; past it nothing but one more count in the minute's
// refused summary, however many refusals arrive.

describe.each(testDatabaseKinds())('the budget of unauthenticated log entries on %s', (kind) => {
  let database: TestDatabase;
  let webhookId: string;
  const uid = `wh_budget_${kind}`;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const db = database.prisma;
    const user = await createUser({ email: 'a@example.com', password: 'a long enough password' }, db);
    const factory = await createFactory(user.id, { name: 'Factory', slug: 'budget' }, db);
    webhookId = (await db.webhook.create({ data: { factoryId: factory.id, uid, name: 'budget', secretName: 'S' }, select: { id: true } })).id;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const entry = (i: number) => ({
    webhookId,
    webhookUid: uid,
    status: 'rejected_auth' as const,
    identity: { deliveryId: `req_${i}`, source: 'request_id' as const },
    size: 2,
    detail: 'wrong token',
    remoteAddress: '198.51.100.7',
  });

  it('writes 60 entries, then refuses with a Retry-After and counts every refusal in one summary', async () => {
    const results = [];
    for (let i = 0; i < 75; i++) results.push(await recordUnauthenticated(entry(i)));
    expect(results.slice(0, 60).every((r) => r.written)).toBe(true);
    for (const refused of results.slice(60)) {
      expect(refused).toMatchObject({ written: false });
      if (!refused.written) {
        expect(refused.retryAfterSeconds).toBeGreaterThan(0);
        expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
      }
    }
    // Refusals by another budget (the failed-authentication budget of an address) add to the same summary.
    await recordRefusal(webhookId);

    const rows = await database.prisma.delivery.findMany({ where: { webhookId }, orderBy: { receivedAt: 'desc' } });
    expect(rows.filter((r) => r.status === 'rejected_auth')).toHaveLength(60);
    const summaries = rows.filter((r) => r.status === 'refused');
    // Almost always one; two when the run straddled a minute boundary.
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(2);
    expect(summaries.reduce((sum, r) => sum + (r.refusedCount ?? 0), 0)).toBe(16);
    const [summary] = summaries;
    expect(summary!.deliveryId).toMatch(/^refused:\d{4}-\d\d-\d\dT\d\d:\d\dZ$/);
    expect(summary!.detail).toMatch(new RegExp(`^${summary!.refusedCount} requests? without valid credentials refused with 429 in the minute from \\d\\d:\\d\\d UTC`));
    expect(summary!.body).toBeNull();
    expect(summary!.remoteAddress).toBeNull();
  });

  it('writes an entry that must be written (a stored handshake secret) even past the budget, and counts it', async () => {
    const before = await database.prisma.delivery.count({ where: { webhookId, status: 'handshake' } });
    const write = await recordUnauthenticated({ ...entry(99), status: 'handshake', detail: 'Asana handshake' }, { always: true });
    expect(write).toEqual({ written: true });
    expect(await database.prisma.delivery.count({ where: { webhookId, status: 'handshake' } })).toBe(before + 1);
  });
});
