import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestTrigger } from '@/lib/domain/automations/test-filter';
import { createFactory } from '@/lib/domain/factories/service';
import type { PayloadFilter } from '@/lib/ingress/filters';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { countFilterMatches, getFieldCatalogue } from './service';

const trigger = (uid: string, payload: PayloadFilter) => ({ provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: [uid], payload } });

describe.each(testDatabaseKinds())('field catalogue and live count on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let otherFactoryId: string;
  let webhookId: string;
  const uid = `wh_fields${kind}`;
  const now = Date.parse('2026-11-23T12:00:00Z');

  const body = (i: number) => JSON.stringify({ action: i % 3 === 0 ? 'closed' : 'opened', n: i, items: [{ sku: `S-${i % 2}` }], auth: { password: `pw-${i}` } });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const db = database.prisma;
    const user = await createUser({ email: 'f@example.com', password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Fields', slug: 'fields' }, db)).id;
    otherFactoryId = (await createFactory(user.id, { name: 'Other', slug: 'other' }, db)).id;
    webhookId = (await db.webhook.create({ data: { factoryId, uid, name: 'orders', secretName: 'S' }, select: { id: true } })).id;
    // 30 accepted deliveries and 10 refused ones (no body) in between.
    await db.delivery.createMany({
      data: Array.from({ length: 40 }, (_, i) => {
        const accepted = i % 4 !== 3;
        return {
          id: `d-${String(i).padStart(3, '0')}`,
          webhookId,
          deliveryId: `evt-${i}`,
          identitySource: 'service_header' as const,
          status: accepted ? ('accepted' as const) : ('rejected_auth' as const),
          size: accepted ? body(i).length : 0,
          receivedAt: new Date(now - (40 - i) * 60_000),
          body: accepted ? body(i) : null,
        };
      }),
    });
  });
  afterAll(() => database?.drop());

  it('lists the paths of the accepted deliveries, without secret-looking values', async () => {
    const catalogue = await getFieldCatalogue(factoryId, uid, database.prisma);
    expect(catalogue.sampled).toBe(30);
    expect(catalogue.fields.map((f) => f.path)).toEqual(['action', 'n', 'items', 'items[]', 'items[].sku', 'auth', 'auth.password']);
    expect(catalogue.fields[0]).toMatchObject({ present: 30, values: [{ value: 'opened', count: 20 }, { value: 'closed', count: 10 }] });
    expect(catalogue.fields.find((f) => f.path === 'auth.password')?.values).toBeNull();
    expect(JSON.stringify(catalogue)).not.toContain('pw-');
  });

  it('counts matches as Backtest does over the same deliveries', async () => {
    for (const payload of [{ action: 'opened' }, { action: 'closed', items: { sku: 'S-1' } }, { n: { not_in: [1, 2, 3] } }, { missing: { exists: true } }] as PayloadFilter[]) {
      const count = await countFilterMatches(factoryId, uid, payload, database.prisma);
      const backtest = await backtestTrigger(factoryId, { trigger: trigger(uid, payload) }, database.prisma);
      expect(count, JSON.stringify(payload)).toEqual({ matched: backtest.wouldTrigger, sampled: backtest.tested });
    }
    expect(await countFilterMatches(factoryId, uid, null, database.prisma)).toEqual({ matched: 30, sampled: 30 });
  });

  it('reads the sample again once a newer delivery arrives', async () => {
    expect((await countFilterMatches(factoryId, uid, { action: 'edited' }, database.prisma)).matched).toBe(0);
    await database.prisma.delivery.create({
      data: { id: 'd-new', webhookId, deliveryId: 'evt-new', identitySource: 'service_header', status: 'accepted', size: 20, receivedAt: new Date(now), body: '{"action":"edited"}' },
    });
    expect(await countFilterMatches(factoryId, uid, { action: 'edited' }, database.prisma)).toEqual({ matched: 1, sampled: 31 });
    expect((await getFieldCatalogue(factoryId, uid, database.prisma)).sampled).toBe(31);
  });

  it('never reads another factory’s webhook', async () => {
    await expect(getFieldCatalogue(otherFactoryId, uid, database.prisma)).rejects.toMatchObject({ code: 'not_found' });
    await expect(countFilterMatches(otherFactoryId, uid, null, database.prisma)).rejects.toMatchObject({ code: 'not_found' });
  });
});
