import { randomBytes } from 'node:crypto';
import { budget } from '../../scripts/speed.mjs';
import { startStripeFake, type FakeEvent, type StripeFake } from '../../tests/support/fakes/stripe';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { rememberSecrets } from '../fixtures/secrets';

// Connecting a webhook to a Stripe account through the API, over real HTTP,
// on embedded PGlite and on PostgreSQL. The fake Stripe
// (tests/support/fakes/stripe.ts) validates every request and response
// against Stripe's OpenAPI description and sends signed deliveries to the
// server's real ingress; the servers allow API base URLs on loopback
// (TRIPLINE_CONNECTION_ALLOW=http,private).

const base = '/api/v1/factories/acme';
let fake: StripeFake;
const apiKey = `rk_test_${randomBytes(18).toString('base64url')}`;
const secretName = `STRIPE_KEY_${randomBytes(4).toString('hex').toUpperCase()}`;

test.describe.configure({ timeout: budget(120_000) });

test.beforeAll(async () => {
  fake = await startStripeFake();
  fake.keys.set(apiKey, 'full');
  rememberSecrets(apiKey);
});
test.afterAll(async () => fake?.close());
test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
  await request.delete(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin) });
  expect(fake.problems).toEqual([]);
});

test('connect creates the Stripe endpoint and stores the secret Stripe made; events it could not deliver are imported by Check now, marked stripe_import; rotation is refused; disconnect deletes it', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'stripe-connected', authMode: 'signature', signatureScheme: 'stripe', providerSecret: 'whsec_placeholderplaceholder' });
  expect((await request.put(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin), data: { value: apiKey } })).status()).toBeLessThan(300);

  const connected = await request.put(`${base}/webhooks/${hook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'stripe_account', apiBaseUrl: fake.url, credentialSecretName: secretName, target: 'self', eventTypes: ['invoice.paid'] },
  });
  const text = await connected.text();
  expect(connected.status(), text).toBe(200);
  const { connection } = JSON.parse(text);
  const endpoint = fake.endpoints.get(connection.providerHookId)!;
  rememberSecrets(endpoint.secret);
  expect(endpoint).toMatchObject({ url: `${baseURL}${hook.url}`, enabled_events: ['invoice.paid'], status: 'enabled' });
  expect(connection.providerHookUrl).toBe(`https://dashboard.stripe.com/webhooks/${endpoint.id}`);
  expect(text).not.toContain(endpoint.secret);
  expect(text).not.toContain(apiKey);

  // Connecting starts a pass at once; the live event below is sent after it, so
  // that pass cannot list it while Stripe is still delivering it (either one would
  // count once, but this test asserts which one the log shows).
  await expect
    .poll(async () => (await (await request.get(`${base}/webhooks/${hook.uid}/connection`, { headers: bearer(tokens.admin) })).json()).connection, { timeout: budget(60_000) })
    .toMatchObject({ lastCheckAt: expect.any(String), checking: false });

  // A live event verifies at the server's ingress with the secret Stripe made (a wrong one gets 401).
  const live = await fake.send('invoice.paid', { id: 'in_live', object: 'invoice' });
  expect(fake.attempts.at(-1)).toMatchObject({ eventId: live.id, status: 202 });

  // Rotation cannot give Stripe a secret: refused in words.
  const rotate = await request.post(`${base}/webhooks/${hook.uid}/rotate-secret`, { headers: bearer(tokens.admin) });
  expect(rotate.status()).toBe(409);
  expect((await rotate.json()).error.message).toMatch(/Stripe issues this webhook's secret/);

  // Events Stripe could not deliver (here: the endpoint pointed elsewhere for a moment) are imported at the next pass.
  const url = endpoint.url;
  endpoint.url = 'http://127.0.0.1:9/unreachable';
  const missed: FakeEvent[] = [];
  for (let i = 0; i < 3; i++) missed.push(await fake.send('invoice.paid', { id: `in_${i}`, object: 'invoice' }));
  endpoint.url = url;
  const check = await request.post(`${base}/webhooks/${hook.uid}/connection/check`, { headers: bearer(tokens.admin) });
  expect(check.status()).toBe(202);
  await expect
    .poll(async () => (await (await request.get(`${base}/webhooks/${hook.uid}/connection`, { headers: bearer(tokens.admin) })).json()).connection, { timeout: budget(60_000) })
    .toMatchObject({ lastRecovered: 3, lastMissing: 3, lastError: null, checking: false });
  const { deliveries } = await (await request.get(`${base}/webhooks/${hook.uid}/deliveries?limit=100`, { headers: bearer(tokens.admin) })).json();
  type Entry = { deliveryId: string; status: string; origin?: string; eventType: string };
  for (const event of missed) {
    expect(deliveries.filter((e: Entry) => e.deliveryId === event.id)).toEqual([expect.objectContaining({ status: 'accepted', origin: 'stripe_import', eventType: 'invoice.paid' })]);
  }
  expect(deliveries.find((e: Entry) => e.deliveryId === live.id)).not.toHaveProperty('origin');

  // Disconnecting with deleteProviderHook deletes Stripe's endpoint.
  expect((await request.delete(`${base}/webhooks/${hook.uid}/connection?deleteProviderHook=true`, { headers: bearer(tokens.admin) })).status()).toBe(204);
  expect(fake.endpoints.has(endpoint.id)).toBe(false);
});

test('an endpoint made by hand for the URL is not adopted: connect names it', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'stripe-manual', authMode: 'signature', signatureScheme: 'stripe', providerSecret: 'whsec_placeholderplaceholder' });
  await request.put(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin), data: { value: apiKey } });
  fake.endpoints.set('we_byhand', { id: 'we_byhand', url: `${baseURL}${hook.url}`, enabled_events: ['*'], status: 'enabled', secret: 'whsec_byhand', description: null, created: Math.floor(Date.now() / 1000) });
  const refused = await request.put(`${base}/webhooks/${hook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'stripe_account', apiBaseUrl: fake.url, credentialSecretName: secretName, target: 'self' },
  });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.message).toMatch(/we_byhand already sends to this webhook's URL/);
  fake.endpoints.delete('we_byhand');
});
