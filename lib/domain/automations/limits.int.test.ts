import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AUTOMATIONS_PER_FACTORY } from '@/lib/domain/automations/schemas';
import { createAutomation, listAutomations } from '@/lib/domain/automations/service';
import { setDatabase } from '@/lib/platform/db';
import { createFactory } from '@/lib/domain/factories/service';
import { recordAccepted } from '@/lib/ingress/record';
import { runsToStart } from '@/lib/domain/runs/start';
import { appError } from '@/tests/support/app-error';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { findLiveWebhook } from '@/lib/ingress/live';
import { createWebhook } from '@/lib/domain/webhooks/service';

// What one editor can make every delivery of a webhook cost: at most 100
// automations per factory, and the ingress loads what matching needs (no
// prompts); a run takes its automation's prompt when it is inserted.

describe.each(testDatabaseKinds())('automation limits on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let uid: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const user = await createUser({ email: 'admin@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(user.id, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
    uid = (await createWebhook(factoryId, { name: 'orders' }, database.prisma)).webhook.uid;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const trigger = () => ({ provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: [uid] } });

  it('the ingress loads triggers without prompts, and a run gets its automation’s prompt', async () => {
    const db = database.prisma;
    const prompt = `Handle the order. ${'Details. '.repeat(2000)}End.`;
    const automation = await createAutomation(factoryId, { name: 'big prompt', prompt, triggers: [trigger()] }, db);
    const live = await findLiveWebhook(uid);
    expect(live!.triggers).toEqual([{ automationId: automation.id, automationName: 'big prompt', events: null, headerFilter: null, payloadFilter: null, runControl: null }]);
    expect(JSON.stringify(live)).not.toContain('Handle the order');

    const webhookId = (await db.webhook.findUniqueOrThrow({ where: { uid }, select: { id: true } })).id;
    const outcome = await recordAccepted({
      factoryId,
      webhookId,
      identity: { deliveryId: 'limits-1', source: 'service_header' },
      size: 2,
      body: '{}',
      headers: {},
      remoteAddress: null,
      runQueueLimit: 1000,
      runs: runsToStart({ name: 'orders', uid }, live!.triggers, { deliveryId: 'limits-1', text: '{}', value: {}, eventType: null, headers: {} }),
    });
    expect(outcome).toMatchObject({ status: 'accepted', runs: 1 });
    const run = await db.run.findFirstOrThrow({ where: { automationId: automation.id } });
    expect(run.prompt).toBe(prompt);
  });

  it(`refuses the ${MAX_AUTOMATIONS_PER_FACTORY + 1}st automation of a factory with a 422 naming the limit`, async () => {
    const db = database.prisma;
    const existing = await db.automation.count({ where: { factoryId } });
    await db.automation.createMany({
      data: Array.from({ length: MAX_AUTOMATIONS_PER_FACTORY - existing }, (_, i) => ({ factoryId, name: `filler ${i}`, prompt: 'p' })),
    });
    const refusal = await appError(createAutomation(factoryId, { name: 'one too many', prompt: 'p', triggers: [trigger()] }, db));
    expect(refusal.status).toBe(422);
    expect(refusal.message).toBe(
      'A factory can have at most 100 automations. Delete one you no longer use, or add a trigger to an existing one, to create another.',
    );
    expect(await db.automation.count({ where: { factoryId } })).toBe(MAX_AUTOMATIONS_PER_FACTORY);
  });

  it('lists a full factory 50 at a time: two pages, every automation once, in name order', async () => {
    const db = database.prisma;
    const first = await listAutomations(factoryId, {}, db);
    expect(first.total).toBe(MAX_AUTOMATIONS_PER_FACTORY);
    expect(first.automations).toHaveLength(50);
    expect(first.nextCursor).not.toBeNull();
    const second = await listAutomations(factoryId, { cursor: first.nextCursor! }, db);
    expect(second.automations).toHaveLength(50);
    expect(second.nextCursor).toBeNull();
    const ids = [...first.automations, ...second.automations].map((a) => a.id);
    expect(new Set(ids).size).toBe(MAX_AUTOMATIONS_PER_FACTORY);
    const all = await db.automation.findMany({ where: { factoryId }, orderBy: [{ name: 'asc' }, { id: 'asc' }], select: { id: true } });
    expect(ids).toEqual(all.map((a) => a.id));
    // The run counts and trigger webhooks are read for the page only.
    expect(first.automations.find((a) => a.name === 'big prompt')).toMatchObject({ runCount: 1, triggers: [{ webhook: { uid, state: 'live' } }] });
    expect((await appError(listAutomations(factoryId, { cursor: 'bm90IGpzb24' }, db))).status).toBe(422);
  });
});
