import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost } from '../fixtures/ingress';

// Event types over real HTTP, on embedded PGlite and on PostgreSQL, signed with
// the senders' own libraries (@octokit/webhooks-methods for GitHub, Stripe's
// SDK for Stripe). GitHub names its event in X-GitHub-Event and the action in
// the body; the log stores `pull_request.opened`, shows it on every entry, and
// filters by a type or a pattern (?event=). Stripe names it in the body's type.

const base = '/api/v1/factories/acme';

test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
});

test('the log stores each GitHub delivery’s event type and filters by a type or a pattern', async ({ request, tokens, baseURL }) => {
  const secret = 'github-event-types-secret';
  const hook = await createWebhook(request, tokens.admin, { name: 'types', authMode: 'signature', signatureScheme: 'github', providerSecret: secret });
  const send = async (event: string, payload: unknown) => {
    const body = JSON.stringify(payload);
    const headers = { 'X-Hub-Signature-256': await sign(secret, body), 'X-GitHub-Event': event, 'X-GitHub-Delivery': randomUUID(), 'Content-Type': 'application/json' };
    const response = await rawPost(baseURL!, hook.url, headers, Buffer.from(body));
    expect(response.status, response.body).toBe(202);
    return JSON.parse(response.body).delivery_id as string;
  };
  const opened = await send('pull_request', { action: 'opened', number: 1, pull_request: { title: 'A' } });
  const review = await send('pull_request_review', { action: 'submitted', review: { state: 'approved' }, pull_request: { title: 'A' } });
  const push = await send('push', { ref: 'refs/heads/main', commits: [] });
  // A type over 200 characters is not a type: stored as none, never a rejection.
  const odd = await send('e'.repeat(300), { action: 'x' });
  // Nor is a 10 KB header, or one with a control character (a tab is legal in a header value).
  const huge = await send('h'.repeat(10_240), { action: 'x' });
  const tabbed = await send('pull\trequest', { action: 'x' });

  const log = async (query = '') => {
    const response = await request.get(`${base}/webhooks/${hook.uid}/deliveries${query}`, { headers: bearer(tokens.viewer) });
    expect(response.status()).toBe(200);
    return (await response.json()).deliveries as { id: string; deliveryId: string; eventType: string | null }[];
  };
  expect((await log()).map((d) => [d.deliveryId, d.eventType])).toEqual([
    [tabbed, null],
    [huge, null],
    [odd, null],
    [push, 'push'],
    [review, 'pull_request_review.submitted'],
    [opened, 'pull_request.opened'],
  ]);
  expect((await log('?event=pull_request.opened')).map((d) => d.deliveryId)).toEqual([opened]);
  expect((await log('?event=pull_request.*')).map((d) => d.deliveryId)).toEqual([opened]);
  expect((await log(`?event=${encodeURIComponent('*')}`)).map((d) => d.deliveryId)).toEqual([push, review, opened]);
  expect((await log('?event=issues.opened')).map((d) => d.deliveryId)).toEqual([]);

  const entry = (await log('?event=push'))[0]!;
  const detail = await (await request.get(`${base}/webhooks/${hook.uid}/deliveries/${entry.id}`, { headers: bearer(tokens.viewer) })).json();
  expect(detail.delivery).toMatchObject({ deliveryId: push, eventType: 'push' });

  // The webhook's stats count accepted deliveries per type ("" for none), in total and per hour.
  const stats = await (await request.get(`${base}/webhooks/${hook.uid}/stats`, { headers: bearer(tokens.viewer) })).json();
  expect(stats.eventTypes).toEqual([
    { type: '', count: 3 },
    { type: 'pull_request.opened', count: 1 },
    { type: 'pull_request_review.submitted', count: 1 },
    { type: 'push', count: 1 },
  ]);
  const perType: Record<string, number> = {};
  for (const bucket of stats.buckets as { eventTypes: Record<string, number>; otherEventTypes: number }[]) {
    for (const [type, count] of Object.entries(bucket.eventTypes)) perType[type] = (perType[type] ?? 0) + count;
    expect(bucket.otherEventTypes).toBe(0);
  }
  expect(perType).toEqual({ '': 3, 'pull_request.opened': 1, 'pull_request_review.submitted': 1, push: 1 });

  for (const event of ['pull*', '**', 'a..b']) {
    const refused = await request.get(`${base}/webhooks/${hook.uid}/deliveries?event=${encodeURIComponent(event)}`, { headers: bearer(tokens.viewer) });
    expect(refused.status()).toBe(422);
    expect((await refused.json()).error.fields.event).toMatch(/^The event type filter is not valid: /);
  }
});

test('a Stripe event, signed by Stripe’s SDK, is logged with the type its body names', async ({ request, tokens, baseURL }) => {
  const secret = 'whsec_eventTypesStripeE2E';
  const hook = await createWebhook(request, tokens.admin, { name: 'stripe-types', authMode: 'signature', signatureScheme: 'stripe', providerSecret: secret });
  const stripe = new Stripe('sk_test_not_used_for_requests');
  const send = async (type: string) => {
    const payload = JSON.stringify({ id: `evt_${randomUUID().replaceAll('-', '')}`, object: 'event', type, data: { object: { object: 'charge', amount: 1200 } } });
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
    const response = await rawPost(baseURL!, hook.url, { 'Stripe-Signature': header, 'Content-Type': 'application/json' }, Buffer.from(payload));
    expect(response.status, response.body).toBe(202);
  };
  await send('charge.succeeded');
  await send('invoice.paid');
  const { deliveries } = await (await request.get(`${base}/webhooks/${hook.uid}/deliveries?event=charge.*`, { headers: bearer(tokens.viewer) })).json();
  expect(deliveries.map((d: { eventType: string }) => d.eventType)).toEqual(['charge.succeeded']);
});
