import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConnectionIngress, type IngressServer } from '@/tests/support/ingress-server';
import { refuseWrites } from '@/tests/support/refuse-writes';
import { startStripeFake, type FakeEvent, type StripeFake } from '@/tests/support/fakes/stripe';
import { connectableWebhook, type ConnectableWebhook } from '@/tests/support/connectable-webhook';

// Connect and recover by import against the fake Stripe, whose every request
// and response is checked against Stripe's published OpenAPI description;
// its deliveries reach the real ingress over HTTP, signed with the whsec_ it
// made, and are verified there. On both databases.

const ingress: IngressServer = await startConnectionIngress();

const { testDatabaseKinds } = await import('@/tests/support/databases');
const { useFactoryDatabase } = await import('@/tests/support/factory-database');
const { createWebhook, rotateWebhookSecret } = await import('@/lib/domain/webhooks/service');
const { readSecretValue } = await import('@/lib/domain/secrets/service');
const { connectWebhook, disconnectWebhook, getConnection, OVERTAKEN_MESSAGE } = await import('@/lib/domain/connections/service');
const { defaultRedeliveryRate, runRecoveryPass } = await import('@/lib/domain/connections/recover');
const { importDelivery, importTarget } = await import('@/lib/domain/connections/import');
const { stripeAccount } = await import('@/lib/domain/connections/providers/stripe');
const { gitlabResendRate } = await import('@/lib/domain/connections/providers/gitlab');
const { listDeliveries } = await import('@/lib/domain/deliveries/service');

afterAll(() => ingress.close());

const FAST = { redeliveryRate: { burst: 1000, perMinute: 60_000 } };

it('imports go at half the delivery rate limit, not at GitHub’s 80 redeliveries a minute: an import asks Stripe for nothing', () => {
  // TRIPLINE_DELIVERY_RATE_LIMIT is 100,000 here (tests/support/ingress-server.ts).
  expect(defaultRedeliveryRate(undefined, 'redelivery')).toEqual({ burst: 20, perMinute: 80 });
  expect(defaultRedeliveryRate(undefined, 'import')).toEqual({ burst: 20, perMinute: 50_000 });
});

it('a limit the provider states replaces GitHub’s 80 a minute: a self-managed GitLab allowing 600 resends a minute gets 540', () => {
  expect(defaultRedeliveryRate(gitlabResendRate(600), 'redelivery')).toEqual({ burst: 1, perMinute: 540 });
  expect(defaultRedeliveryRate(gitlabResendRate(5), 'redelivery')).toEqual({ burst: 1, perMinute: 4.5 });
});

describe.each(testDatabaseKinds())('connections to Stripe on %s', (kind) => {
  const state = useFactoryDatabase(kind, `Stripe connections ${kind}`);
  let fake: StripeFake;
  let webhook: ConnectableWebhook;
  let uid: string;
  let webhookId: string;
  let automationId: string;

  beforeAll(async () => {
    fake = await startStripeFake();
    fake.keys.set('rk_test_full', 'full');
    fake.keys.set('rk_test_events', 'events');
    // A Stripe webhook without its provider secret yet: connecting stores the one Stripe makes.
    webhook = await connectableWebhook(state, {
      name: 'stripe',
      scheme: 'stripe',
      secrets: { STRIPE_KEY: 'rk_test_full', STRIPE_EVENTS_ONLY: 'rk_test_events' },
      automation: { name: 'On paid invoices', prompt: 'Thank them', filter: { events: ['invoice.paid'] } },
    });
    ({ uid, webhookId, automationId } = webhook);
  });
  afterAll(async () => fake?.close());
  afterEach(() => {
    ingress.down = false;
    expect(fake.problems).toEqual([]);
  });

  const connectionId = () => webhook.connectionId();
  const entries = (ids: string[]) =>
    state.database.prisma.delivery.findMany({ where: { webhookId, deliveryId: { in: ids } }, select: { deliveryId: true, status: true, origin: true, eventType: true, identitySource: true, runs: { select: { automationId: true } } } });
  const endpoint = () => [...fake.endpoints.values()].find((e) => e.url === `${ingress.url}/webhooks/w/${uid}`)!;
  const connect = (extra: Record<string, unknown> = {}) =>
    connectWebhook(state.factoryId, uid, { provider: 'stripe_account', apiBaseUrl: fake.url, credentialSecretName: 'STRIPE_KEY', target: 'self', eventTypes: ['invoice.paid', 'charge.succeeded'], ...extra }, state.database.prisma);
  const paid = (n: number) => fake.send('invoice.paid', { id: `in_${n}`, object: 'invoice', amount_paid: n });

  it('connect creates the endpoint with the ingress URL and the events, and stores the whsec_ Stripe returns, so its next signed delivery verifies', async () => {
    const view = await connect();
    const secretName = (await state.database.prisma.webhook.findUniqueOrThrow({ where: { uid } })).secretName;
    const secret = (await readSecretValue(state.database.prisma, state.factoryId, secretName))!.value;
    expect(endpoint()).toMatchObject({ enabled_events: ['invoice.paid', 'charge.succeeded'], status: 'enabled', secret });
    expect(secret).toMatch(/^whsec_/);
    expect(JSON.stringify(view)).not.toContain(secret);
    expect(view).toMatchObject({ provider: 'stripe_account', target: 'self', providerHookId: endpoint().id, providerHookUrl: `https://dashboard.stripe.com/webhooks/${endpoint().id}`, lastError: null });

    const event = await paid(1);
    expect(fake.attempts.at(-1)).toMatchObject({ eventId: event.id, status: 202 });
    const [entry] = await entries([event.id]);
    expect(entry).toMatchObject({ status: 'accepted', origin: null, eventType: 'invoice.paid', identitySource: 'provider_body', runs: [{ automationId }] });
    // Stripe's own retry of the same event is a Duplicate.
    fake.events.at(-1)!.delivered.clear();
    await fake.retry(event.id);
    expect((await entries([event.id])).map((e) => e.status).sort()).toEqual(['accepted', 'duplicate']);
  });

  it('connecting again keeps the endpoint and its secret and changes its events; rotation is refused in words', async () => {
    const before = endpoint();
    const view = await connect({ eventTypes: ['invoice.paid'] });
    expect(view.providerHookId).toBe(before.id);
    expect(fake.endpoints.size).toBe(1);
    expect(endpoint().enabled_events).toEqual(['invoice.paid']);
    expect((await paid(2)).delivered.size).toBe(1);
    await expect(rotateWebhookSecret(state.factoryId, uid, state.database.prisma)).rejects.toThrow(/Stripe issues this webhook's secret/);
  });

  it('imports 50 events that failed while Tripline was unreachable: each once, marked stripe_import, one run each', async () => {
    expect(await runRecoveryPass(await connectionId(), FAST, state.database.prisma)).toMatchObject({ outcome: 'ok', missing: 0 });
    const runsBefore = await state.database.prisma.run.count({ where: { automationId } });
    ingress.down = true;
    const sent: FakeEvent[] = [];
    for (let i = 0; i < 50; i++) sent.push(await paid(100 + i));
    // Another type the endpoint does not take: never sent to it, never imported.
    await fake.send('customer.created', { id: 'cus_1' });
    ingress.down = false;
    expect(sent.every((e) => fake.view(e).pending_webhooks === 1)).toBe(true);

    const requests = fake.requests.length;
    const result = await runRecoveryPass(await connectionId(), FAST, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'ok', missing: 50, redelivered: 50, error: null });
    // The listing carries the events: no event was fetched one by one.
    expect(fake.requests.slice(requests).filter((r) => r.startsWith('GET /v1/events/'))).toEqual([]);
    const ids = sent.map((e) => e.id);
    const log = await entries(ids);
    expect(log.map((e) => e.deliveryId).sort()).toEqual([...ids].sort());
    expect(log.every((e) => e.status === 'accepted' && e.origin === 'stripe_import' && e.eventType === 'invoice.paid' && e.identitySource === 'provider_body')).toBe(true);
    expect(log.every((e) => e.runs.length === 1 && e.runs[0]!.automationId === automationId)).toBe(true);
    expect(await state.database.prisma.run.count({ where: { automationId } })).toBe(runsBefore + 50);
    // The log's API shows where an entry came from.
    const page = await listDeliveries(state.factoryId, uid, { limit: 100 }, state.database.prisma);
    expect(page.deliveries.find((d) => d.deliveryId === ids[0])).toMatchObject({ origin: 'stripe_import' });
    // The body is the event as Stripe's API rendered it.
    const body = (await state.database.prisma.delivery.findFirstOrThrow({ where: { webhookId, deliveryId: ids[0] }, select: { body: true } })).body!;
    expect(JSON.parse(body)).toMatchObject({ id: ids[0], object: 'event', type: 'invoice.paid', data: { object: { id: 'in_100' } } });

    // A second pass imports nothing again; Stripe's late retries of the same events are Duplicates that start nothing.
    expect(await runRecoveryPass(await connectionId(), FAST, state.database.prisma)).toMatchObject({ outcome: 'ok', missing: 0, redelivered: 0 });
    await fake.retry(ids[0]!);
    expect((await entries([ids[0]!])).map((e) => e.status).sort()).toEqual(['accepted', 'duplicate']);
    expect(await state.database.prisma.run.count({ where: { automationId } })).toBe(runsBefore + 50);
  });

  it('a live delivery and an import of the same event, racing, make one entry and one run', async () => {
    ingress.down = true;
    const event = await paid(300);
    ingress.down = false;
    const target = await importTarget(state.database.prisma, webhookId, stripeAccount);
    const listed = { attemptId: event.id, identity: event.id, deliveredAt: new Date(event.created * 1000), eventType: event.type, event: event.type, outcome: 'failure' as const, redelivery: false };
    const [imported, [live]] = await Promise.all([importDelivery(target, listed, fake.view(event), state.database.prisma), fake.retry(event.id)]);
    expect(live!.status).toBe(202);
    expect(imported.status === 'accepted' || imported.status === 'duplicate').toBe(true);
    const log = await entries([event.id]);
    expect(log.filter((e) => e.status === 'accepted')).toHaveLength(1);
    expect(log.flatMap((e) => e.runs)).toHaveLength(1);
    // The pass then finds it in the log.
    expect(await runRecoveryPass(await connectionId(), FAST, state.database.prisma)).toMatchObject({ outcome: 'ok', missing: 0 });
  });

  it('rides out a 429 with Retry-After and a 500 part-way through the listing, with nothing missing and nothing doubled', async () => {
    ingress.down = true;
    const sent: FakeEvent[] = [];
    for (let i = 0; i < 150; i++) sent.push(await paid(400 + i));
    ingress.down = false;
    // The first page comes; the second is refused twice with Retry-After, then fails once with 500.
    let pages = 0;
    fake.drift = (template, body) => (template === '/v1/events' && pages++ === 0 && fake.faults.length === 0 ? (fake.faults.push({ match: /^GET \/v1\/events$/, status: 429, headers: { 'retry-after': '1' }, times: 2 }, { match: /^GET \/v1\/events$/, status: 500 }), body) : body);
    const slept: number[] = [];
    const result = await runRecoveryPass(await connectionId(), { ...FAST, sleep: async (ms) => void slept.push(ms) }, state.database.prisma);
    fake.drift = null;
    expect(result).toMatchObject({ outcome: 'ok', missing: 150, redelivered: 150 });
    expect(slept.filter((ms) => ms >= 1000).length).toBeGreaterThanOrEqual(2);
    const log = await entries(sent.map((e) => e.id));
    expect(log.filter((e) => e.status === 'accepted')).toHaveLength(150);
    expect(log).toHaveLength(150);
  });

  it('an event over the ingress’s body limit is refused in words, once, not imported', async () => {
    ingress.down = true;
    const big = await fake.send('invoice.paid', { id: 'in_big', lines: 'x'.repeat(300 * 1024) });
    ingress.down = false;
    const result = await runRecoveryPass(await connectionId(), FAST, state.database.prisma);
    expect(result).toMatchObject({ outcome: 'ok', missing: 1, redelivered: 0 });
    expect(result.error).toMatch(new RegExp(`${big.id} is \\d+ KB, over the 256 KB limit of a delivery's body: not imported`));
    await runRecoveryPass(await connectionId(), FAST, state.database.prisma);
    expect(await entries([big.id])).toEqual([expect.objectContaining({ status: 'rejected_too_large', runs: [] })]);
  });

  it('events from before the endpoint existed are never imported, though Stripe lists them account-wide', async () => {
    // Another endpoint on the account that fails: its events stay listed by delivery_success=false.
    fake.endpoints.set('we_other', { id: 'we_other', url: 'http://127.0.0.1:9/nowhere', enabled_events: ['*'], status: 'enabled', secret: 'whsec_other', description: null, created: endpoint().created - 3600 });
    const old = await fake.send('invoice.paid', { id: 'in_old' }, { created: endpoint().created - 60 });
    const result = await runRecoveryPass(await connectionId(), FAST, state.database.prisma);
    // Missing: only the event too large to import (the previous test), listed again until the watermark passes it.
    expect(result).toMatchObject({ outcome: 'ok', missing: 1, redelivered: 0, error: expect.stringMatching(/over the 256 KB limit/) });
    expect(await entries([old.id])).toEqual([]);
    fake.endpoints.delete('we_other');
  });

  it('an endpoint already sending to the URL is not adopted: connect names it; a key without the permission is refused naming it', async () => {
    const other = await createWebhook(state.factoryId, { name: 'stripe-2', authMode: 'signature', signatureScheme: 'stripe', providerSecret: 'whsec_placeholderplaceholder' }, state.database.prisma);
    const url = `${ingress.url}/webhooks/w/${other.webhook.uid}`;
    fake.endpoints.set('we_manual', { id: 'we_manual', url, enabled_events: ['*'], status: 'enabled', secret: 'whsec_manual', description: null, created: Math.floor(Date.now() / 1000) });
    const input = { provider: 'stripe_account' as const, apiBaseUrl: fake.url, credentialSecretName: 'STRIPE_KEY', target: 'self' };
    await expect(connectWebhook(state.factoryId, other.webhook.uid, input, state.database.prisma)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/webhook endpoint we_manual already sends to this webhook's URL.*https:\/\/dashboard\.stripe\.com\/webhooks\/we_manual/),
    });
    expect((await readSecretValue(state.database.prisma, state.factoryId, other.webhook.secretName))!.value).toBe('whsec_placeholderplaceholder');
    fake.endpoints.delete('we_manual');
    await expect(connectWebhook(state.factoryId, other.webhook.uid, { ...input, credentialSecretName: 'STRIPE_EVENTS_ONLY' }, state.database.prisma)).rejects.toMatchObject({
      code: 'validation_failed',
      fields: { credentialSecretName: expect.stringMatching(/"Webhook Endpoints" write/) },
    });
    expect(await getConnection(state.factoryId, other.webhook.uid, state.database.prisma)).toBeNull();
  });

  it('disconnect deleting the endpoint, then connect: a new endpoint with a new secret, and the old one gone', async () => {
    const old = endpoint();
    await disconnectWebhook(state.factoryId, uid, { deleteProviderHook: true }, state.database.prisma);
    expect(fake.endpoints.has(old.id)).toBe(false);
    const view = await connect();
    expect(view.providerHookId).not.toBe(old.id);
    expect(view.watermark).toBeNull();
    expect(endpoint().secret).not.toBe(old.secret);
    const event = await paid(900);
    expect(fake.attempts.at(-1)).toMatchObject({ eventId: event.id, status: 202 });
  });

  // The endpoints sending to this webhook's URL, and the secret Tripline checks its deliveries with.
  const sending = () => [...fake.endpoints.values()].filter((e) => e.url === `${ingress.url}/webhooks/w/${uid}`);
  const storedSecret = async () => {
    const { secretName } = await state.database.prisma.webhook.findUniqueOrThrow({ where: { uid }, select: { secretName: true } });
    return (await readSecretValue(state.database.prisma, state.factoryId, secretName))!.value;
  };

  it('a connect whose row cannot be written deletes the endpoint it made, so the next connect makes one rather than refusing it as someone else’s', async () => {
    const db = state.database.prisma;
    await disconnectWebhook(state.factoryId, uid, { deleteProviderHook: true }, db);
    // A real failure of the database after Stripe made the endpoint: it refuses the connection's row.
    const allowWrites = await refuseWrites(db, 'WebhookConnection');
    try {
      await expect(connect()).rejects.toThrow(/writes to WebhookConnection refused by the test/);
      expect(sending()).toEqual([]);
      expect(await getConnection(state.factoryId, uid, db)).toBeNull();
    } finally {
      await allowWrites();
    }
    const view = await connect();
    expect(sending().map((e) => e.id)).toEqual([view.providerHookId]);
    expect(sending()[0]!.secret).toBe(await storedSecret());
  });

  it('two connects that each make an endpoint: the one that commits second gives way and deletes its own, so one endpoint sends, with the stored secret', async () => {
    if (await getConnection(state.factoryId, uid, state.database.prisma)) await disconnectWebhook(state.factoryId, uid, { deleteProviderHook: true }, state.database.prisma);
    for (const left of sending()) fake.endpoints.delete(left.id);
    // The first connect's create waits at Stripe while a second connect (another admin, another instance) runs to its end.
    let overtaker: ReturnType<typeof connect> | undefined;
    fake.before = async (request) => {
      if (request !== 'POST /v1/webhook_endpoints' || overtaker) return;
      overtaker = connect();
      await overtaker.catch(() => {});
    };
    try {
      await expect(connect()).rejects.toMatchObject({ code: 'conflict', message: OVERTAKEN_MESSAGE });
    } finally {
      fake.before = null;
    }
    const winner = await overtaker!;
    expect(sending().map((e) => e.id)).toEqual([winner.providerHookId]);
    expect(sending()[0]!.secret).toBe(await storedSecret());
    expect((await getConnection(state.factoryId, uid, state.database.prisma))?.providerHookId).toBe(winner.providerHookId);
    const event = await paid(901);
    expect(fake.attempts.filter((a) => a.eventId === event.id).map((a) => a.status)).toEqual([202]);
  });
});
