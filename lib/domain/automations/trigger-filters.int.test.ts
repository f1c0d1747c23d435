import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { createAutomation, deleteAutomation, getAutomation, updateAutomation } from '@/lib/domain/automations/service';
import { backtestTrigger, testTrigger } from '@/lib/domain/automations/test-filter';
import { explainDelivery } from '@/lib/domain/automations/why-not';
import { setDatabase } from '@/lib/platform/db';
import { copyPendingBodies } from '@/lib/domain/deliveries/body-json';
import { createFactory } from '@/lib/domain/factories/service';
import { handleIngress } from '@/lib/ingress/pipeline';
import { replayDelivery } from '@/lib/domain/runs/replay';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser } from '@/lib/domain/users/service';
import { findLiveWebhook } from '@/lib/ingress/live';
import { forgetWebhook } from '@/lib/ingress/live-cache';
import { createWebhook } from '@/lib/domain/webhooks/service';

// A trigger's `events` and `headers` (docs/filters.md): stored beside the
// payload filter, loaded by the ingress with the live webhook, and honoured
// alike by the ingress, Test filter, Why not, Backtest and Replay. GitHub
// deliveries over the real ingress pipeline: the type is X-GitHub-Event plus
// the body's action.

const SECRET = 'a github webhook secret';

describe.each(testDatabaseKinds())('trigger events and headers on %s', (kind) => {
  let database: TestDatabase;
  let factoryId: string;
  let uid: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    setDatabase(database);
    const db = database.prisma;
    const user = await createUser({ email: 'events@example.com', password: 'a long enough password' }, db);
    factoryId = (await createFactory(user.id, { name: 'Events', slug: 'events' }, db)).id;
    uid = (await createWebhook(factoryId, { name: 'github', authMode: 'signature', signatureScheme: 'github', providerSecret: SECRET }, db)).webhook.uid;
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const trigger = (filter: Record<string, unknown> = {}) => ({ provider: 'webhook' as const, event: 'received' as const, filter: { webhook_ids: [uid], ...filter } });

  async function send(event: string, body: unknown, headers: Record<string, string> = {}) {
    const text = JSON.stringify(body);
    const signature = `sha256=${createHmac('sha256', SECRET).update(text).digest('hex')}`;
    const response = await handleIngress(
      new Request(`http://localhost/webhooks/w/${uid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': signature, ...headers },
        body: text,
      }),
      { uid },
    );
    expect(response.status).toBe(202);
    return database.prisma.delivery.findFirstOrThrow({ where: { webhook: { uid } }, orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }], select: { id: true, eventType: true, runs: { select: { automationId: true } } } });
  }

  it('stores events and headers (names in lower case), and leaves both null for a trigger without them', async () => {
    const db = database.prisma;
    const automation = await createAutomation(
      factoryId,
      { name: 'opened PRs', prompt: 'Review it.', triggers: [trigger({ events: ['pull_request.opened'], headers: { 'X-Tenant': 'acme' } }), trigger()] },
      db,
    );
    expect(automation.triggers.map((t) => t.trigger.filter)).toEqual([{ webhook_ids: [uid], events: ['pull_request.opened'], headers: { 'x-tenant': 'acme' } }, { webhook_ids: [uid] }]);
    const rows = await db.webhookTrigger.findMany({ where: { automationId: automation.id }, orderBy: { position: 'asc' }, select: { events: true, headerFilter: true } });
    expect(rows).toEqual([
      { events: ['pull_request.opened'], headerFilter: { 'x-tenant': 'acme' } },
      { events: null, headerFilter: null },
    ]);
    const refused = await createAutomation(factoryId, { name: 'bad', prompt: 'p', triggers: [trigger({ events: ['pull*'], headers: { authorization: 'x' } })] }, db).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ZodError);
    expect((refused as ZodError).issues.map((issue) => issue.path.join('.')).sort()).toEqual(['triggers.0.filter.events', 'triggers.0.filter.headers']);
    await deleteAutomation(factoryId, automation.id, db);
  });

  it('starts a run only for a listed type and matching headers, and every surface explains it alike', async () => {
    const db = database.prisma;
    const opened = await createAutomation(factoryId, { name: 'opened', prompt: 'Review it.', triggers: [trigger({ events: ['pull_request.opened'] })] }, db);
    const anyPr = await createAutomation(factoryId, { name: 'any PR', prompt: 'Look.', triggers: [trigger({ events: ['pull_request.*'], headers: { 'x-tenant': ['acme'] } })] }, db);
    const all = await createAutomation(factoryId, { name: 'all', prompt: 'Log it.', triggers: [trigger()] }, db);
    const live = await findLiveWebhook(uid);
    expect(live!.triggers.find((t) => t.automationId === anyPr.id)).toMatchObject({ events: ['pull_request.*'], headerFilter: { 'x-tenant': ['acme'] } });

    const pr = await send('pull_request', { action: 'opened', number: 1 }, { 'X-Tenant': 'acme' });
    expect(pr.eventType).toBe('pull_request.opened');
    expect(pr.runs.map((r) => r.automationId).sort()).toEqual([opened.id, anyPr.id, all.id].sort());

    const review = await send('pull_request_review', { action: 'submitted', pull_request: { number: 1 } }, { 'X-Tenant': 'beta' });
    expect(review.eventType).toBe('pull_request_review.submitted');
    expect(review.runs.map((r) => r.automationId)).toEqual([all.id]);

    // Test filter, Why not and Backtest give the same answers, with the reason.
    const tested = await testTrigger(factoryId, { trigger: trigger({ events: ['pull_request.*'] }), deliveryId: review.id, automationEnabled: true }, db);
    expect(tested).toMatchObject({ wouldTrigger: false, eventCheck: { passed: false, reason: 'event type "pull_request_review.submitted" is not one of "pull_request.*"' } });
    const headerTested = await testTrigger(factoryId, { trigger: trigger({ headers: { 'x-tenant': 'acme' } }), deliveryId: review.id, automationEnabled: true }, db);
    expect(headerTested.headerCheck).toMatchObject({ passed: false, reason: '1 of 1 condition did not match' });
    expect(headerTested.headerCheck.checks[0]).toMatchObject({ path: 'x-tenant', actual: '"beta"' });

    const why = await explainDelivery(factoryId, uid, review.id, db);
    expect(why.automations.find((a) => a.automation.id === opened.id)?.summary).toBe(
      'Did not start: the event type did not match (event type "pull_request_review.submitted" is not one of "pull_request.opened")',
    );
    expect(why.automations.find((a) => a.automation.id === anyPr.id)?.summary).toBe(
      'Did not start: the event type did not match (event type "pull_request_review.submitted" is not one of "pull_request.*")',
    );

    const backtest = await backtestTrigger(factoryId, { trigger: trigger({ events: ['pull_request.opened'] }) }, db);
    expect(backtest).toMatchObject({ tested: 2, wouldTrigger: 1 });
    expect(backtest.deliveries.find((d) => !d.wouldTrigger)?.failures).toEqual(['event type "pull_request_review.submitted" is not one of "pull_request.opened"']);
    const byHeader = await backtestTrigger(factoryId, { trigger: trigger({ headers: { 'x-tenant': 'beta' } }) }, db);
    expect(byHeader).toMatchObject({ tested: 2, wouldTrigger: 1 });
    // The same answers from the jsonb copies in SQL (joined with the log's type and headers), whole and in halves.
    expect(await copyPendingBodies(db)).toBe(2);
    expect(await backtestTrigger(factoryId, { trigger: trigger({ events: ['pull_request.opened'] }) }, db)).toEqual(backtest);
    expect(await backtestTrigger(factoryId, { trigger: trigger({ events: ['pull_request.opened'] }) }, db, 1)).toEqual(backtest);
    expect(await backtestTrigger(factoryId, { trigger: trigger({ headers: { 'x-tenant': 'beta' } }) }, db)).toEqual(byHeader);
    expect(await backtestTrigger(factoryId, { trigger: trigger({ headers: { 'x-tenant': 'beta' }, payload: { action: 'submitted' } }) }, db)).toMatchObject({ tested: 2, wouldTrigger: 1 });

    // Replay against today's triggers: a trigger changed to the review's type starts it.
    await updateAutomation(factoryId, opened.id, { triggers: [trigger({ events: ['pull_request_review.*'] })] }, db);
    forgetWebhook(uid);
    const replayed = await replayDelivery(factoryId, uid, review.id, { email: 'events@example.com' }, db);
    expect(replayed.started.map((s) => s.automationId)).toEqual([opened.id]);
    expect((await getAutomation(factoryId, opened.id, db)).runCount).toBe(2);
  });
});
