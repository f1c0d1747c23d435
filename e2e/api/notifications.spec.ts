import type { APIRequestContext } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, type Created } from '../fixtures/ingress';
import { startReceiver, type Receiver } from '../fixtures/receiver';
import { rememberSecrets } from '../fixtures/secrets';

// Health and notifications over real HTTP, on embedded PGlite and on
// PostgreSQL (two instances on one database: each transition must still be
// sent once). The servers run the health job every second
// (TRIPLINE_HEALTH_INTERVAL=1) and allow notification URLs on loopback
// (TRIPLINE_NOTIFICATION_ALLOW=http,private); a local receiver stands in
// for the team's endpoint and checks every signature with standardwebhooks.

const base = '/api/v1/factories/acme';
let receiver: Receiver;
let secret: string;
const destinations: string[] = [];

// Polls wait up to 30 s (times the speed factor) for the health job's next turns: generous for a loaded machine, and a passing run waits no longer.
test.describe.configure({ timeout: budget(120_000) });

test.beforeAll(async () => {
  receiver = await startReceiver();
});
test.afterAll(async () => {
  await receiver.close();
});
test.afterEach(async ({ request, tokens }) => {
  for (const id of destinations.splice(0)) await request.delete(`${base}/notifications/destinations/${id}`, { headers: bearer(tokens.admin) });
  await deleteCreatedWebhooks(request, tokens.admin);
});

async function addDestination(request: APIRequestContext, token: string, kind: 'standard_webhooks' | 'slack', path: string) {
  const response = await request.post(`${base}/notifications/destinations`, { headers: bearer(token), data: { name: `receiver-${kind}`, kind, url: `${receiver.url}${path}` } });
  expect(response.status(), await response.text()).toBe(201);
  const body = await response.json();
  destinations.push(body.destination.id);
  rememberSecrets(body.secret);
  return body as { destination: { id: string }; secret: string | null };
}

/** The signed events the receiver got about one webhook, each verified with standardwebhooks. */
function eventsFor(uid: string) {
  return receiver.received
    .filter((r) => r.path === '/signed' && (r.json.data?.webhook as { uid?: string } | undefined)?.uid === uid)
    .map((r) => {
      const verified = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string };
      return verified.type;
    });
}

const send = (baseURL: string, hook: Created, token: string | null, body = '{"ok":true}') =>
  rawPost(baseURL, hook.url, token ? { Authorization: `Bearer ${token}` } : {}, Buffer.from(body));

async function health(request: APIRequestContext, token: string, uid: string) {
  const response = await request.get(`${base}/webhooks/${uid}/stats?window=24h`, { headers: bearer(token) });
  expect(response.status()).toBe(200);
  return response.json();
}

test('wrong credentials until webhook.failing, valid ones until webhook.recovered: one signed notification per transition', async ({ request, tokens, baseURL }) => {
  ({ secret } = (await addDestination(request, tokens.admin, 'standard_webhooks', '/signed')) as { secret: string });
  expect(secret).toMatch(/^whsec_/);
  const hook = await createWebhook(request, tokens.admin, { name: 'failing' });
  expect((await health(request, tokens.viewer, hook.uid)).health.state).toBe('new');

  for (let i = 0; i < 3; i++) expect((await send(baseURL!, hook, 'not-the-secret')).status).toBe(401);
  await expect.poll(() => eventsFor(hook.uid), { timeout: budget(30_000) }).toEqual(['webhook.failing']);
  const stats = await health(request, tokens.viewer, hook.uid);
  expect(stats.health.state).toBe('failing_auth');
  expect(stats.totals.rejected_auth).toBe(3);

  expect((await send(baseURL!, hook, hook.secret)).status).toBe(202);
  await expect.poll(() => eventsFor(hook.uid), { timeout: budget(30_000) }).toEqual(['webhook.failing', 'webhook.recovered']);
  // Just before the last delivery was sent (to the second below: the server's clock is this machine's).
  const sentAgain = Math.floor(Date.now() / 1000) * 1000;
  // Still one per transition a few job runs later, and more requests of the same kind start nothing new.
  expect((await send(baseURL!, hook, hook.secret, '{"again":true}')).status).toBe(202);
  // About time passing: nothing new over a few of the health job's runs (one a second); a slower machine watches longer.
  await new Promise((resolve) => setTimeout(resolve, budget(3_000)));
  expect(eventsFor(hook.uid)).toEqual(['webhook.failing', 'webhook.recovered']);
  const recovered = receiver.received.find((r) => r.json.type === 'webhook.recovered' && (r.json.data?.webhook as { uid: string }).uid === hook.uid)!;
  expect(recovered.headers['webhook-id']).toMatch(/^evt_/);
  expect(recovered.json.data).toMatchObject({ factory: { slug: 'acme' }, previous: 'failing_auth', health: { state: 'healthy' } });

  // The webhook's JSON carries its health and the last accepted delivery.
  const { webhook } = await (await request.get(`${base}/webhooks/${hook.uid}`, { headers: bearer(tokens.viewer) })).json();
  expect(webhook.health.state).toBe('healthy');
  expect(Date.parse(webhook.health.lastAcceptedAt)).toBeGreaterThanOrEqual(sentAgain);

  // The log lists what was sent, with its outcome.
  const log = (await (await request.get(`${base}/notifications`, { headers: bearer(tokens.admin) })).json()).notifications;
  expect(log.filter((n: { type: string; status: string }) => n.status === 'sent').map((n: { type: string }) => n.type)).toEqual(
    expect.arrayContaining(['webhook.failing', 'webhook.recovered']),
  );
  // Only admins see notifications.
  expect((await request.get(`${base}/notifications`, { headers: bearer(tokens.viewer) })).status()).toBe(403);
});

test('past the rate limit: webhook.rate_limited, once', async ({ request, tokens, baseURL }) => {
  ({ secret } = (await addDestination(request, tokens.admin, 'standard_webhooks', '/signed')) as { secret: string });
  const hook = await createWebhook(request, tokens.admin, { name: 'limited' });
  // The default delivery rate limit is 60 a minute: 80 at once, in a few seconds even on a busy machine.
  const statuses = await Promise.all(Array.from({ length: 80 }, (_, i) => send(baseURL!, hook, hook.secret, `{"n":${i}}`).then((r) => r.status)));
  expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  await expect.poll(() => eventsFor(hook.uid), { timeout: budget(30_000) }).toEqual(['webhook.rate_limited']);
  expect((await health(request, tokens.viewer, hook.uid)).health.state).toBe('rate_limited');
  // About time passing: not sent again over the health job's next runs (one a second); a slower machine watches longer.
  await new Promise((resolve) => setTimeout(resolve, budget(2_000)));
  expect(eventsFor(hook.uid)).toEqual(['webhook.rate_limited']);
});

test('a silent interval, crossed with the test clock: webhook.silent, then webhook.recovered', async ({ request, tokens, baseURL }) => {
  ({ secret } = (await addDestination(request, tokens.admin, 'standard_webhooks', '/signed')) as { secret: string });
  const hook = await createWebhook(request, tokens.admin, { name: 'cron' });
  // Bad input gets a field error.
  const bad = await request.patch(`${base}/webhooks/${hook.uid}`, { headers: bearer(tokens.admin), data: { expectedIntervalSeconds: 5 } });
  expect(bad.status()).toBe(422);
  expect((await bad.json()).error.fields.expectedIntervalSeconds).toContain('at least 60');
  const set = await request.patch(`${base}/webhooks/${hook.uid}`, { headers: bearer(tokens.admin), data: { expectedIntervalSeconds: 60 } });
  expect(set.status()).toBe(200);
  expect((await set.json()).webhook.expectedIntervalSeconds).toBe(60);
  expect((await send(baseURL!, hook, hook.secret)).status).toBe(202);
  await expect.poll(async () => (await health(request, tokens.viewer, hook.uid)).health.state).toBe('healthy');

  // Two minutes on: past the interval.
  expect((await request.post('/api/test/clock', { data: { offsetSeconds: 120 } })).status()).toBe(200);
  try {
    await expect.poll(() => eventsFor(hook.uid), { timeout: budget(30_000) }).toEqual(['webhook.silent']);
    expect((await health(request, tokens.viewer, hook.uid)).health.state).toBe('silent');
  } finally {
    expect((await request.post('/api/test/clock', { data: { offsetSeconds: 0 } })).status()).toBe(200);
  }
  expect((await send(baseURL!, hook, hook.secret, '{"late":true}')).status).toBe(202);
  await expect.poll(() => eventsFor(hook.uid), { timeout: budget(30_000) }).toEqual(['webhook.silent', 'webhook.recovered']);
});

test('a run that fails after its last attempt: run.failed; a rotated secret: webhook.secret_rotated; a Slack destination gets readable text', async ({ request, tokens, baseURL }) => {
  ({ secret } = (await addDestination(request, tokens.admin, 'standard_webhooks', '/signed')) as { secret: string });
  await addDestination(request, tokens.admin, 'slack', '/services/T000/B000/slack');
  const hook = await createWebhook(request, tokens.admin, { name: 'runs' });
  const created = await request.post(`${base}/automations`, {
    headers: bearer(tokens.editor),
    data: { name: `fails-${Date.now()}`, prompt: 'Fail.', triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [hook.uid] } }] },
  });
  expect(created.status()).toBe(201);
  const automation = (await created.json()).automation;
  try {
    expect((await send(baseURL!, hook, hook.secret, '{"fail":true}')).status).toBe(202);
    const runFailed = () =>
      receiver.received.filter((r) => r.path === '/signed' && r.json.type === 'run.failed' && (r.json.data?.automation as { id: string }).id === automation.id);
    await expect.poll(() => runFailed().length, { timeout: budget(20_000) }).toBe(1);
    const event = runFailed()[0]!;
    expect(new Webhook(secret).verify(event.body, event.headers as Record<string, string>)).toMatchObject({ type: 'run.failed' });
    expect(event.json.data).toMatchObject({
      factory: { slug: 'acme' },
      run: { error: expect.any(String) },
      // A bearer-token webhook names no event type.
      delivery: { deliveryId: expect.any(String), eventType: null, webhook: { uid: hook.uid } },
    });

    const rotated = await request.post(`${base}/webhooks/${hook.uid}/rotate-secret`, { headers: bearer(tokens.admin) });
    rememberSecrets((await rotated.json()).secret);
    await expect.poll(() => eventsFor(hook.uid), { timeout: budget(30_000) }).toContain('webhook.secret_rotated');
    // The new secret is never in a notification.
    expect(receiver.received.some((r) => r.body.includes(hook.secret!))).toBe(false);
    await expect
      .poll(() => receiver.received.filter((r) => r.path.startsWith('/services/') && r.json.text?.includes('was rotated')).length, { timeout: budget(30_000) })
      .toBe(1);
    const slack = receiver.received.find((r) => r.path.startsWith('/services/') && r.json.text?.includes('failed after its last attempt'));
    expect(slack?.json.text).toContain(automation.name);
    // Slack gets no signature headers.
    expect(slack?.headers['webhook-signature']).toBeUndefined();
  } finally {
    await request.delete(`${base}/automations/${automation.id}`, { headers: bearer(tokens.admin) });
  }
});

test('Send test notification, destination rules, and who may manage destinations', async ({ request, tokens }) => {
  const { destination } = await addDestination(request, tokens.admin, 'standard_webhooks', '/signed');
  const test = await request.post(`${base}/notifications/destinations/${destination.id}/test`, { headers: bearer(tokens.admin) });
  expect(test.status()).toBe(202);
  const { eventId } = await test.json();
  await expect.poll(() => receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length, { timeout: budget(30_000) }).toBe(1);
  // The list never shows the secret.
  const list = await (await request.get(`${base}/notifications/destinations`, { headers: bearer(tokens.admin) })).json();
  expect(JSON.stringify(list)).not.toContain('whsec_');
  // Bad input gets field errors; editors and outsiders cannot manage destinations.
  const bad = await request.post(`${base}/notifications/destinations`, { headers: bearer(tokens.admin), data: { name: '', kind: 'pager', url: 'ftp://x' } });
  expect(bad.status()).toBe(422);
  expect(Object.keys((await bad.json()).error.fields).sort()).toEqual(['kind', 'name', 'url']);
  expect((await request.post(`${base}/notifications/destinations`, { headers: bearer(tokens.editor), data: { name: 'x', kind: 'slack', url: 'https://example.com/x' } })).status()).toBe(403);
  expect((await request.delete(`${base}/notifications/destinations/${destination.id}`, { headers: bearer(tokens.outsider) })).status()).toBe(404);
});

test('a disabled destination receives nothing, not even a test, until it is enabled again', async ({ request, tokens }) => {
  const { destination } = await addDestination(request, tokens.admin, 'standard_webhooks', '/signed');
  const url = `${base}/notifications/destinations/${destination.id}`;
  const patch = (token: string, data: unknown) => request.patch(url, { headers: bearer(token), data });

  expect((await patch(tokens.editor, { enabled: false })).status()).toBe(403);
  expect((await patch(tokens.outsider, { enabled: false })).status()).toBe(404);
  const bad = await patch(tokens.admin, { enabled: 'no' });
  expect(bad.status()).toBe(422);
  expect((await bad.json()).error.fields).toEqual({ enabled: 'enabled must be true or false' });

  const off = await patch(tokens.admin, { enabled: false });
  expect(off.status()).toBe(200);
  expect((await off.json()).destination).toMatchObject({ id: destination.id, enabled: false });
  const refused = await request.post(`${url}/test`, { headers: bearer(tokens.admin) });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.message).toBe('This destination is disabled');
  const listed = await (await request.get(`${base}/notifications/destinations`, { headers: bearer(tokens.admin) })).json();
  expect(listed.destinations.find((d: { id: string }) => d.id === destination.id)).toMatchObject({ enabled: false });

  const on = await patch(tokens.admin, { enabled: true });
  expect((await on.json()).destination).toMatchObject({ enabled: true });
  const sent = await request.post(`${url}/test`, { headers: bearer(tokens.admin) });
  expect(sent.status()).toBe(202);
  const { eventId } = await sent.json();
  await expect.poll(() => receiver.received.filter((r) => r.headers['webhook-id'] === eventId).length, { timeout: budget(30_000) }).toBe(1);
});
