import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { applyDefinitions } from '@/lib/domain/definitions/apply';
import { planDefinitions } from '@/lib/domain/definitions/plan';
import { readDefinitionFiles, setConfigSource } from '@/lib/domain/definitions/service';
import { createFactory } from '@/lib/domain/factories/service';
import { createWebhook, getWebhook, setCustomResponse, updateWebhook, setEventTypeSetting } from '@/lib/domain/webhooks/service';
import { webhookJson } from '@/lib/domain/webhooks/json';
import { findLiveWebhook } from '@/lib/ingress/live';
import { metrics } from '@/lib/platform/metrics';
import { testDatabaseKinds } from '@/tests/support/databases';
import { postJson, useFactoryDatabase } from '@/tests/support/factory-database';
import { appError } from '@/tests/support/app-error';

// A webhook's custom response through the service, the live cache and the
// ingress, on each database: what the sender receives for accepted and
// duplicate deliveries, what never changes (a 401), the checks, and the
// definition file of a managed factory.

describe.each(testDatabaseKinds())('the custom response on %s', (kind) => {
  const ctx = useFactoryDatabase(kind, 'Responses');

  const post = (uid: string, bearer: string, body: unknown, headers: Record<string, string> = {}) => postJson(uid, body, { authorization: `Bearer ${bearer}`, ...headers });
  /** tripline_ingress_requests_total of a bearer webhook, by outcome. */
  const counted = async (outcome: string) =>
    (await metrics().ingressRequests.get()).values.find((value) => value.labels.outcome === outcome && value.labels.auth_mode === 'token')?.value ?? 0;
  const answer = async (response: Response) => ({ status: response.status, contentType: response.headers.get('content-type'), body: await response.text() });

  it('answers accepted and duplicate deliveries with it, the ID escaped for the content type; null brings back 202', async () => {
    const db = ctx.database.prisma;
    const created = await createWebhook(ctx.factoryId, { name: 'adyen', deliveryIdHeader: 'X-Event-Id' }, db);
    const { uid } = created.webhook;
    const bearer = created.secret!;
    expect(created.webhook.customResponse).toBeNull();
    expect(await answer(await post(uid, bearer, { n: 0 }, { 'X-Event-Id': 'before' }))).toEqual({
      status: 202,
      contentType: 'application/json',
      body: '{"delivery_id":"before"}',
    });

    const view = await setCustomResponse(ctx.factoryId, uid, { status: 200, contentType: 'application/json', body: '{"ok": true, "id": "{{delivery_id}}"}' }, db);
    expect(view.customResponse).toEqual({ status: 200, contentType: 'application/json', body: '{"ok": true, "id": "{{delivery_id}}"}' });
    expect(webhookJson(await getWebhook(ctx.factoryId, uid, db)).customResponse).toEqual(view.customResponse);
    // The row's change dropped the cached webhook: the next request reads the new answer.
    expect((await findLiveWebhook(uid))?.customResponse).toEqual({ status: 200, contentType: 'application/json', parts: ['{"ok": true, "id": "', '"}'] });

    const first = await answer(await post(uid, bearer, { n: 1 }, { 'X-Event-Id': 'evt "1"' }));
    expect(first).toEqual({ status: 200, contentType: 'application/json', body: '{"ok": true, "id": "evt \\"1\\""}' });
    expect(JSON.parse(first.body)).toEqual({ ok: true, id: 'evt "1"' });
    expect(await answer(await post(uid, bearer, { n: 1 }, { 'X-Event-Id': 'evt "1"' }))).toEqual(first);
    const logged = await db.delivery.findMany({ where: { webhook: { uid }, deliveryId: 'evt "1"' }, select: { status: true }, orderBy: { receivedAt: 'asc' } });
    expect(logged.map((entry) => entry.status)).toEqual(['accepted', 'duplicate']);

    await setCustomResponse(ctx.factoryId, uid, { status: 201, contentType: 'application/xml', body: '<ok id="{{delivery_id}}"/>' }, db);
    expect(await answer(await post(uid, bearer, { n: 2 }, { 'X-Event-Id': 'a<b>&"c"' }))).toEqual({
      status: 201,
      contentType: 'application/xml',
      body: '<ok id="a&lt;b&gt;&amp;&quot;c&quot;"/>',
    });

    await setCustomResponse(ctx.factoryId, uid, { status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' }, db);
    expect(await answer(await post(uid, bearer, { n: 3 }))).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' });

    await setCustomResponse(ctx.factoryId, uid, { status: 204 }, db);
    // Counted as what they are: a 204 or 200 of a recorded delivery is no handshake.
    const [accepted, duplicates, handshakes] = [await counted('accepted'), await counted('duplicate'), await counted('handshake')];
    const empty = await post(uid, bearer, { n: 4 });
    expect((await post(uid, bearer, { n: 4 })).status).toBe(204);
    expect([await counted('accepted'), await counted('duplicate'), await counted('handshake')]).toEqual([accepted + 1, duplicates + 1, handshakes]);
    expect([empty.status, empty.headers.get('content-type'), empty.headers.get('cache-control'), await empty.text()]).toEqual([204, null, 'no-store', '']);

    // What never changes: a failed authentication is the same 401 with or without a custom response.
    const refused = await answer(await post(uid, 'not-the-secret', { n: 5 }));
    expect(refused).toEqual({ status: 401, contentType: 'application/json', body: '{"error":{"code":"unauthorized","message":"Authentication failed"}}' });

    expect((await setCustomResponse(ctx.factoryId, uid, null, db)).customResponse).toBeNull();
    expect(await answer(await post(uid, bearer, { n: 6 }, { 'X-Event-Id': 'after' }))).toEqual({
      status: 202,
      contentType: 'application/json',
      body: '{"delivery_id":"after"}',
    });
  });

  it('refuses a bad value at its field, stores nothing, and the database refuses a shape the schema would', async () => {
    const db = ctx.database.prisma;
    const { webhook } = await createWebhook(ctx.factoryId, { name: 'checked' }, db);
    const issues = async (input: Parameters<typeof setCustomResponse>[2]) => {
      const error = await setCustomResponse(ctx.factoryId, webhook.uid, input, db).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ZodError);
      return (error as ZodError).issues.map((issue) => issue.path.join('.'));
    };
    expect(await issues({ status: 500 as never, contentType: 'application/json', body: '{}' })).toEqual(['customResponse.status']);
    expect(await issues({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'x'.repeat(2048) })).toEqual(['customResponse.body']);
    expect(await issues({ status: 204, body: 'no' })).toEqual(['customResponse.body']);
    expect(await issues({ status: 200, contentType: 'text/plain; charset=utf-8', body: '{{id}}' })).toEqual(['customResponse.body']);
    expect((await getWebhook(ctx.factoryId, webhook.uid, db)).customResponse).toBeNull();

    // Written past the service, a broken shape is refused by the migration's CHECK.
    const write = (data: { customResponseStatus?: number; customResponseContentType?: string | null; customResponseBody?: string | null }) =>
      db.webhook.update({ where: { uid: webhook.uid }, data }).then(
        () => 'stored',
        () => 'refused',
      );
    expect(await write({ customResponseStatus: 500, customResponseContentType: 'application/json', customResponseBody: '{}' })).toBe('refused');
    expect(await write({ customResponseStatus: 204, customResponseContentType: null, customResponseBody: 'x' })).toBe('refused');
    expect(await write({ customResponseStatus: 200, customResponseContentType: 'text/html', customResponseBody: 'x' })).toBe('refused');
    expect(await write({ customResponseStatus: 200, customResponseContentType: 'text/plain; charset=utf-8', customResponseBody: 'é'.repeat(513) })).toBe('refused');
    expect(await write({ customResponseStatus: 200, customResponseContentType: 'text/plain; charset=utf-8', customResponseBody: 'é'.repeat(512) })).toBe('stored');
    expect(await write({ customResponseStatus: 204, customResponseContentType: null, customResponseBody: null })).toBe('stored');
  });

  it('is part of the definition: a managed factory’s file follows it, a plan shows it, an apply sets it; a repository-backed factory refuses', async () => {
    const db = ctx.database.prisma;
    const managed = (await createFactory(ctx.userId, { name: 'Managed', slug: 'managed' }, db)).id;
    const { webhook, secret } = await createWebhook(managed, { name: 'orders' }, db);
    await setConfigSource(managed, 'managed', db);
    const file = async () => (await readDefinitionFiles(managed, db))['webhooks/orders.yaml'];

    await setCustomResponse(managed, webhook.uid, { status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted] {{delivery_id}}' }, db);
    const written = 'authMode: token\nsecretName: ORDERS_WEBHOOK_SECRET\ncustomResponse:\n  status: 200\n  contentType: text/plain; charset=utf-8\n  body: "[accepted] {{delivery_id}}"\n';
    expect(await file()).toBe(written);
    // Another setting's change rewrites the file with the custom response in it.
    await setEventTypeSetting(managed, webhook.uid, { eventTypeHeader: 'X-Kind' }, db);
    expect(await file()).toBe(written.replace('customResponse:', 'eventTypeHeader: x-kind\ncustomResponse:'));
    expect((await planDefinitions(managed, await readDefinitionFiles(managed, db), db)).actions).toEqual([]);

    const files = { 'webhooks/orders.yaml': 'secretName: ORDERS_WEBHOOK_SECRET\ncustomResponse:\n  status: 204\n' };
    const plan = await planDefinitions(managed, files, db);
    expect(plan.actions).toMatchObject([
      { action: 'update', name: 'orders', changes: ['eventTypeHeader: x-kind → (none)', 'customResponse: 200 text/plain; charset=utf-8 "[accepted] {{delivery_id}}" → 204'] },
    ]);
    expect((await applyDefinitions(managed, files, { source: 'managed', db })).ok).toBe(true);
    expect((await getWebhook(managed, webhook.uid, db)).customResponse).toEqual({ status: 204, contentType: null, body: null });
    expect((await post(webhook.uid, secret!, { n: 1 })).status).toBe(204);

    const broken = await planDefinitions(managed, { 'webhooks/orders.yaml': 'secretName: ORDERS_WEBHOOK_SECRET\ncustomResponse:\n  status: 301\n' }, db);
    expect(broken.problems).toEqual([{ file: 'webhooks/orders.yaml', key: 'customResponse.status', message: 'Choose 200, 201, 202 or 204' }]);

    await db.factory.update({ where: { id: managed }, data: { configSource: 'repository' } });
    const refused = await appError(setCustomResponse(managed, webhook.uid, null, db));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toMatch(/change customResponse in its definition file/);
    expect((await getWebhook(managed, webhook.uid, db)).customResponse).toEqual({ status: 204, contentType: null, body: null });

    // A change refused on one of its fields changes none of them (PATCH with enabled and customResponse).
    const both = await appError(updateWebhook(managed, webhook.uid, { enabled: false, customResponse: null }, db));
    expect(both.code).toBe('conflict');
    expect((await getWebhook(managed, webhook.uid, db)).enabled).toBe(true);
    await db.factory.update({ where: { id: managed }, data: { configSource: 'managed' } });
    await expect(updateWebhook(managed, webhook.uid, { enabled: false, expectedIntervalSeconds: 3600, eventTypeHeader: 'Authorization' }, db)).rejects.toThrow(/cannot be the event type header/);
    expect(await getWebhook(managed, webhook.uid, db)).toMatchObject({ enabled: true, expectedIntervalSeconds: null });
  });
});
