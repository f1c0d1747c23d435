import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { recordAuthFailure, recordUnauthenticated } from '@/lib/ingress/log-budget';
import { recordRefusal } from '@/lib/ingress/record';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

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
    expect(summary!.detail).toMatch(new RegExp(`^${summary!.refusedCount} requests? without valid credentials refused with 429 \\(or 404 from outside the IP allowlist\\) in the minute from \\d\\d:\\d\\d UTC`));
    expect(summary!.body).toBeNull();
    expect(summary!.remoteAddress).toBeNull();
  });

  it('counts failed authentications per address first: past its 20, an address is refused without taking from the webhook\'s 60', async () => {
    const other = (await database.prisma.webhook.create({ data: { factoryId: (await database.prisma.webhook.findUniqueOrThrow({ where: { id: webhookId } })).factoryId, uid: `${uid}_auth`, name: 'auth', secretName: 'S2' }, select: { id: true } })).id;
    const failure = (i: number, address: string) => ({ ...entry(i), webhookId: other, webhookUid: `${uid}_auth`, remoteAddress: address });
    const from = async (address: string, n: number) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(await recordAuthFailure(failure(i, address), address));
      return out;
    };
    const first = await from('198.51.100.1', 25);
    expect(first.slice(0, 20).every((w) => w.written)).toBe(true);
    for (const w of first.slice(20)) {
      expect(w).toMatchObject({ written: false, budget: 'auth_failure' });
      if (!w.written) expect(w.retryAfterSeconds).toBeGreaterThan(0);
    }
    // The first address's 5 refusals took nothing from the webhook's 60: two more addresses write 40.
    expect((await from('198.51.100.2', 20)).every((w) => w.written)).toBe(true);
    expect((await from('198.51.100.3', 20)).every((w) => w.written)).toBe(true);
    // The webhook's budget is spent: a fourth address, within its own 20, is refused by the webhook's.
    expect(await from('198.51.100.4', 1)).toEqual([expect.objectContaining({ written: false, budget: 'unauthenticated' })]);

    const rows = await database.prisma.delivery.findMany({ where: { webhookId: other } });
    expect(rows.filter((r) => r.status === 'rejected_auth')).toHaveLength(60);
    expect(new Set(rows.filter((r) => r.status === 'rejected_auth').map((r) => r.remoteAddress))).toEqual(new Set(['198.51.100.1', '198.51.100.2', '198.51.100.3']));
    expect(rows.filter((r) => r.status === 'refused').reduce((sum, r) => sum + (r.refusedCount ?? 0), 0)).toBe(6);
  });

  it('writes an entry that must be written (a stored handshake secret) even past the budget, and counts it', async () => {
    const before = await database.prisma.delivery.count({ where: { webhookId, status: 'handshake' } });
    const write = await recordUnauthenticated({ ...entry(99), status: 'handshake', detail: 'Asana handshake' }, { always: true });
    expect(write).toEqual({ written: true });
    expect(await database.prisma.delivery.count({ where: { webhookId, status: 'handshake' } })).toBe(before + 1);
  });
});
