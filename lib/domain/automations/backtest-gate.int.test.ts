import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKTEST_RATE_LIMIT, runBacktest } from '@/lib/domain/automations/backtest-gate';
import { backtestTrigger } from '@/lib/domain/automations/test-filter';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { appError } from '@/tests/support/app-error';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';

// Backtest's bounds: one at a time per factory, a rate budget per factory
// (shared by instances on PostgreSQL), and a cap on the bodies without a
// jsonb copy that one call evaluates in TypeScript.

describe.each(testDatabaseKinds())('Backtest bounds on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let otherFactoryId: string;
  const uid = 'wh_gate';

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const db = database.prisma;
    const user = await createUser({ email: 'g@example.com', password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Gate', slug: 'gate' }, db)).id;
    otherFactoryId = (await createFactory(user.id, { name: 'Other', slug: 'other' }, db)).id;
    const webhook = await db.webhook.create({ data: { factoryId, uid, name: 'orders', secretName: 'S' }, select: { id: true } });
    await db.webhook.create({ data: { factoryId: otherFactoryId, uid: 'wh_gateother', name: 'orders', secretName: 'S' } });
    await db.delivery.createMany({
      data: Array.from({ length: 50 }, (_, i) => ({
        id: `g-${String(i).padStart(3, '0')}`,
        webhookId: webhook.id,
        deliveryId: `evt-${i}`,
        identitySource: 'service_header' as const,
        status: 'accepted' as const,
        size: 10,
        receivedAt: new Date(Date.UTC(2026, 10, 20, 0, i)),
        body: JSON.stringify({ n: i, kind: i % 2 ? 'odd' : 'even' }),
      })),
    });
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const trigger = (webhookUid = uid) => ({ provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: [webhookUid], payload: { kind: 'odd' } } });

  it('evaluates at most the cap of bodies without a copy and says how many it did not test', async () => {
    const full = await backtestTrigger(factoryId, { trigger: trigger() }, database.prisma);
    expect(full).toMatchObject({ tested: 50, untested: 0, wouldTrigger: 25 });
    // With a cap of 0 no body without a copy is evaluated: all 50 are counted as untested.
    const none = await backtestTrigger(factoryId, { trigger: trigger() }, database.prisma, undefined, 0);
    expect(none).toMatchObject({ tested: 0, untested: 50, wouldTrigger: 0 });
    // A cap inside a page: evaluation stops at the cap, not at the page's end; the rest is counted.
    const part = await backtestTrigger(factoryId, { trigger: trigger() }, database.prisma, undefined, 30);
    expect(part).toMatchObject({ tested: 30, untested: 20 });
  });

  it('runs one Backtest per factory at a time: a second one at once gets 429 with Retry-After', async () => {
    const results = await Promise.allSettled([runBacktest(factoryId, { trigger: trigger() }), runBacktest(factoryId, { trigger: trigger() })]);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as { code: string; status: number; retryAfterSeconds: number; message: string });
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'rate_limited', status: 429, retryAfterSeconds: 2, message: 'Another Backtest is running. Try again in a few seconds.' });
    // Another factory is not held back by it.
    const both = await Promise.allSettled([runBacktest(factoryId, { trigger: trigger() }), runBacktest(otherFactoryId, { trigger: trigger('wh_gateother') })]);
    expect(both.every((r) => r.status === 'fulfilled')).toBe(true);
  });

  it(`allows ${BACKTEST_RATE_LIMIT} Backtests a minute per factory, then 429 until the minute has passed`, async () => {
    let ran = 2; // the calls above that were let through
    while (ran < BACKTEST_RATE_LIMIT) {
      await runBacktest(factoryId, { trigger: trigger() });
      ran += 1;
    }
    const refusal = await appError(runBacktest(factoryId, { trigger: trigger() }));
    expect(refusal.status).toBe(429);
    expect(refusal.message).toMatch(/^This factory ran 30 Backtests in the last minute, the most allowed\. Try again in \d+ seconds?\.$/);
    expect(refusal.retryAfterSeconds).toBeGreaterThan(0);
    // The other factory has a budget of its own.
    await expect(runBacktest(otherFactoryId, { trigger: trigger('wh_gateother') })).resolves.toMatchObject({ tested: 0 });
  });
});
