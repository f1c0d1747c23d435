import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { stripeAccount, stripeAdapter } from '@/lib/domain/connections/providers/stripe';
import { ProviderError } from '@/lib/domain/connections/provider';
import { verify } from '@/lib/ingress/signatures/stripe';
import { startReceiver, type Receiver } from '@/tests/support/fakes/receiver';
import { startStripeFake, type StripeFake } from '@/tests/support/fakes/stripe';

// The Stripe adapter (stripe-node over boundedFetch) against the fake Stripe,
// whose every request and response is checked against Stripe's published
// OpenAPI description; and the fake's own proof that it cannot drift from
// that description. The fake's deliveries verify with the ingress's own
// Stripe verifier.

process.env.TRIPLINE_CONNECTION_ALLOW = 'http,private';

const bounds = () => ({ bytesLeft: 10_000_000, deadline: Date.now() + 60_000, requests: 0 });

describe('the Stripe adapter against the fake Stripe', () => {
  let fake: StripeFake;
  let receiver: Receiver;
  let receiverUrl: string;

  beforeAll(async () => {
    fake = await startStripeFake();
    fake.keys.set('rk_test_full', 'full');
    fake.keys.set('rk_test_events', 'events');
    receiver = await startReceiver(200, '/webhooks/w/wh_stripe');
    receiverUrl = receiver.url;
  });
  afterAll(async () => {
    await fake?.close();
    await receiver?.close();
  });
  afterEach(() => {
    expect(fake.problems).toEqual([]);
  });

  const adapter = (key = 'rk_test_full', target = 'self', options: { bytesLeft?: number } = {}) =>
    stripeAdapter({ apiBaseUrl: fake.url, key, target, bounds: { ...bounds(), ...options } });

  it('creates an endpoint with the URL and events, and takes the whsec_ Stripe returns once; its deliveries verify with it', async () => {
    const hook = await adapter().createHook({ url: receiverUrl, secret: '', events: ['invoice.paid', 'charge.succeeded'] });
    expect(hook).toMatchObject({ url: receiverUrl, events: ['invoice.paid', 'charge.succeeded'], active: true });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.secret).toBe(fake.endpoints.get(hook.id)!.secret);
    // Stripe never shows it again.
    expect(await adapter().findHook(receiverUrl)).toEqual({ id: hook.id, url: receiverUrl, events: ['invoice.paid', 'charge.succeeded'], active: true });
    expect(await adapter().findHook(`${receiverUrl}/other`)).toBeNull();

    const event = await fake.send('invoice.paid', { id: 'in_1', object: 'invoice' });
    const delivery = receiver.received.at(-1)!;
    expect(JSON.parse(delivery.body)).toMatchObject({ id: event.id, type: 'invoice.paid' });
    const headers = new Headers({ 'stripe-signature': delivery.headers['stripe-signature'] as string });
    expect(verify({ headers, rawBody: Buffer.from(delivery.body), secret: hook.secret!, now: Math.floor(Date.now() / 1000) })).toMatchObject({ ok: true });
    // stripe-node's own verifier agrees: the fake signs as Stripe does.
    expect(Stripe.webhooks.constructEvent(delivery.body, delivery.headers['stripe-signature'] as string, hook.secret!).id).toBe(event.id);
  });

  it('lists the events its endpoint has not had, newest first across pages, since the endpoint exists, and fetches one', async () => {
    const hook = (await adapter().findHook(receiverUrl))!;
    const events = Date.now();
    receiver.answer = 503;
    for (let i = 0; i < 130; i++) await fake.send(i % 2 ? 'invoice.paid' : 'charge.succeeded', { id: `obj_${i}`, n: i });
    // Not subscribed: never sent to the endpoint, not listed for it.
    await fake.send('customer.created', { id: 'cus_1' });
    receiver.answer = 200;
    // Delivered: not listed (delivery_success=false).
    const delivered = await fake.send('invoice.paid', { id: 'in_ok' });
    // Before the endpoint existed (another endpoint's failure): never meant for it.
    const before = await fake.send('invoice.paid', { id: 'in_old' }, { created: fake.endpoints.get(hook.id)!.created - 60 });

    const stripe = adapter();
    const first = await stripe.listDeliveries(hook.id, null);
    expect(first.deliveries).toHaveLength(100);
    expect(first.next).toBe(first.deliveries[99]!.attemptId);
    const second = await stripe.listDeliveries(hook.id, first.next);
    expect(second.next).toBeNull();
    const all = [...first.deliveries, ...second.deliveries];
    expect(all).toHaveLength(130); // the first test's event was delivered: not listed
    const ids = all.map((d) => d.identity);
    expect(ids).not.toContain(delivered.id);
    expect(ids).not.toContain(before.id);
    expect(new Set(all.map((d) => d.eventType))).toEqual(new Set(['invoice.paid', 'charge.succeeded']));
    expect(all.every((d, i) => i === 0 || d.deliveredAt.getTime() <= all[i - 1]!.deliveredAt.getTime())).toBe(true);
    expect(all.every((d) => d.deliveredAt.getTime() >= events - 1000)).toBe(true);
    const one = all.find((d) => d.eventType === 'charge.succeeded')!;
    expect(one).toMatchObject({ attemptId: one.identity, event: 'charge.succeeded', outcome: 'failure', redelivery: false, payload: { id: one.identity, object: 'event', type: 'charge.succeeded' } });
    expect(one.identity).toMatch(/^evt_/);
    expect((await stripe.fetchDelivery(hook.id, one.attemptId)).payload).toEqual(one.payload);
    // The listing asked Stripe for what the endpoint subscribes to, and only since its creation.
    const listing = decodeURIComponent(fake.requests.find((r) => r.startsWith('GET /v1/events?'))!);
    expect(listing).toContain('delivery_success=false');
    expect(listing).toContain(`created[gte]=${fake.endpoints.get(hook.id)!.created}`);
    expect(listing).toContain('types[0]=invoice.paid');
  });

  it('cannot redeliver: Stripe has no such API', async () => {
    await expect(adapter().redeliver('we_1', 'evt_1')).rejects.toThrow(/cannot be asked to send an event again/);
  });

  it('updates the URL and events (never the secret), and deletes the endpoint; deleting twice is no error', async () => {
    const hook = (await adapter().findHook(receiverUrl))!;
    const secret = fake.endpoints.get(hook.id)!.secret;
    const updated = await adapter().updateHook(hook.id, { url: receiverUrl, secret: 'ignored', events: [] });
    expect(updated).toMatchObject({ events: ['*'], active: true });
    expect(updated.secret).toBeUndefined();
    expect(fake.endpoints.get(hook.id)!.secret).toBe(secret);
    await adapter().deleteHook(hook.id);
    expect(fake.endpoints.has(hook.id)).toBe(false);
    await adapter().deleteHook(hook.id);
    await expect(adapter().listDeliveries(hook.id, null)).rejects.toThrow(/no webhook endpoint .* any more/);
  });

  it('a connected account’s requests carry Stripe-Account', async () => {
    await adapter('rk_test_full', 'acct_1Abc').findHook(receiverUrl);
    expect(fake.accounts.at(-1)).toBe('acct_1Abc');
    expect(stripeAccount.checkTarget('stripe_account', 'acct_1Abc')).toBeNull();
    expect(stripeAccount.checkTarget('stripe_account', 'self')).toBeNull();
    expect(stripeAccount.checkTarget('stripe_account', 'acme')).toMatch(/acct_/);
    expect(stripeAccount.hookPage('stripe_account', fake.url, 'self', 'we_123')).toBe('https://dashboard.stripe.com/webhooks/we_123');
  });

  it('names the missing permission of a restricted key, and says a wrong key is wrong', async () => {
    const denied = await adapter('rk_test_events').findHook(receiverUrl).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(ProviderError);
    expect((denied as ProviderError).message).toMatch(/"Webhook Endpoints" write and "Events" read/);
    expect((denied as ProviderError).options.permanent).toBe(true);
    const wrong = await adapter('sk_test_nope').findHook(receiverUrl).catch((error: unknown) => error);
    expect((wrong as ProviderError).message).toMatch(/refused the API key \(HTTP 401\)/);
  });

  it('says when Stripe answers garbage, and passes on Retry-After of a 429', async () => {
    const hook = await adapter().createHook({ url: receiverUrl, secret: '', events: ['invoice.paid'] });
    fake.faults.push({ match: /^GET \/v1\/events$/, status: 200, body: '<html>not json' });
    await expect(adapter().listDeliveries(hook.id, null)).rejects.toThrow(/not JSON/);
    fake.faults.push({ match: /^GET \/v1\/events$/, status: 200, body: '{"object":"list","data":[{"id":"x"}],"has_more":false}' });
    await expect(adapter().listDeliveries(hook.id, null)).rejects.toThrow(/not a list of events/);
    fake.faults.push({ match: /^GET \/v1\/events$/, status: 429, headers: { 'retry-after': '7' } });
    const limited = await adapter().listDeliveries(hook.id, null).catch((error: unknown) => error);
    expect(limited).toMatchObject({ status: 429, options: { retryAfterSeconds: 7 } });
    fake.faults.push({ match: /^GET \/v1\/events$/, status: 500 });
    expect(await adapter().listDeliveries(hook.id, null).catch((error: unknown) => error)).toMatchObject({ status: 500, options: { retryAfterSeconds: 0 } });
    await adapter().deleteHook(hook.id);
  });

  it('stops reading when a pass has read its bytes', async () => {
    const hook = await adapter().createHook({ url: receiverUrl, secret: '', events: ['invoice.paid'] });
    receiver.answer = 500;
    await fake.send('invoice.paid', { id: 'in_big', padding: 'x'.repeat(2000) });
    receiver.answer = 200;
    const small = adapter('rk_test_full', 'self', { bytesLeft: 1500 });
    await expect(small.listDeliveries(hook.id, null)).rejects.toThrow(/more than the pass may read/);
    await adapter().deleteHook(hook.id);
  });
});

describe('the fake Stripe cannot drift from Stripe’s description', () => {
  let fake: StripeFake;
  beforeAll(async () => {
    fake = await startStripeFake();
    fake.keys.set('k', 'full');
  });
  afterAll(async () => fake?.close());

  it('records a response that Stripe would never send', async () => {
    const stripe = stripeAdapter({ apiBaseUrl: fake.url, key: 'k', target: 'self', bounds: bounds() });
    // The drift: endpoints without their required `livemode`, events with a numeric pending_webhooks string.
    fake.drift = (template, body) => (template === '/v1/webhook_endpoints' && !(body as { data?: unknown }).data ? { ...(body as object), livemode: undefined } : body);
    await stripe.createHook({ url: 'http://127.0.0.1:9/x', secret: '', events: ['invoice.paid'] }).catch(() => undefined);
    expect(fake.problems.join('\n')).toMatch(/POST \/v1\/webhook_endpoints: response 200: .*livemode/);
    fake.problems.length = 0;
    await fake.send('invoice.paid', { id: 'in_1' });
    fake.drift = (template, body) =>
      template === '/v1/events' ? { ...(body as object), data: (body as { data: object[] }).data.map((e) => ({ ...e, pending_webhooks: '1' })) } : body;
    await stripe.listDeliveries([...fake.endpoints.keys()][0]!, null).catch(() => undefined);
    expect(fake.problems.join('\n')).toMatch(/GET \/v1\/events: response 200: .*pending_webhooks.*must be integer/);
    fake.drift = null;
  });

  it('refuses a request Stripe would refuse, with 400, and records it', async () => {
    fake.problems.length = 0;
    const post = await fetch(`${fake.url}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=http%3A%2F%2Fx&enabled_events[0]=no.such_event',
    });
    expect(post.status).toBe(400);
    expect(fake.problems.join('\n')).toMatch(/request body: .*enabled_events.*allowedValues/);
    fake.problems.length = 0;
    const unknown = await fetch(`${fake.url}/v1/events?status=pending`, { headers: { authorization: 'Bearer k' } });
    expect(unknown.status).toBe(400);
    expect(fake.problems.join('\n')).toMatch(/unknown query parameter status/);
    fake.problems.length = 0;
  });
});
