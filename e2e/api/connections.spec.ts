import { randomBytes } from 'node:crypto';
import { budget } from '../../scripts/speed.mjs';
import { startGitHubFake, type FakeDelivery, type GitHubFake } from '../../tests/support/fakes/github';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { rememberSecrets } from '../fixtures/secrets';

// Connecting a webhook to GitHub through the API, over real HTTP, on embedded
// PGlite and on PostgreSQL. The fake GitHub (tests/support/fakes/github.ts)
// validates every request and response against GitHub's REST description and
// sends signed deliveries to the server's real ingress; the servers allow
// API base URLs on loopback (TRIPLINE_CONNECTION_ALLOW=http,private).

const base = '/api/v1/factories/acme';
let fake: GitHubFake;
const apiToken = `ghp_${randomBytes(18).toString('base64url')}`;
const secretName = `GH_TOKEN_${randomBytes(4).toString('hex').toUpperCase()}`;

test.describe.configure({ timeout: budget(120_000) });

test.beforeAll(async () => {
  fake = await startGitHubFake();
  fake.tokens.set(apiToken, 'admin');
  rememberSecrets(apiToken);
});
test.afterAll(async () => fake?.close());
test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
  await request.delete(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin) });
  expect(fake.problems).toEqual([]);
});

test('connect creates the GitHub hook whose ping and deliveries verify; rotating updates it; a missed delivery is recovered by Check now; disconnect deletes it', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'gh-connected', authMode: 'signature', signatureScheme: 'github' });
  expect((await request.put(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin), data: { value: apiToken } })).status()).toBeLessThan(300);
  const target = `octo/app-${randomBytes(3).toString('hex')}`;

  const connected = await request.put(`${base}/webhooks/${hook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: secretName, target, eventTypes: ['issues'] },
  });
  const text = await connected.text();
  expect(connected.status(), text).toBe(200);
  const { connection } = JSON.parse(text);
  const github = fake.hooks.get(Number(connection.providerHookId))!;
  rememberSecrets(github.config.secret);
  expect(github).toMatchObject({ scope: `repos/${target}`, events: ['issues'], config: { url: `${baseURL}${hook.url}`, content_type: 'json' } });
  expect(text).not.toContain(github.config.secret!);
  expect(text).not.toContain(apiToken);

  // GitHub's ping, then a delivery: both verified by the server's ingress (202; a wrong signature gets 401).
  await expect.poll(() => fake.deliveries.filter((d) => d.hookId === github.id && d.event === 'ping').map((d) => d.status_code)).toEqual([202]);
  const [live] = await fake.send(`repos/${target}`, 'issues', { action: 'opened', issue: { number: 1 } });
  expect(live!.status_code).toBe(202);

  // Rotating the secret sets the new one on GitHub's hook in the same request.
  const rotated = await (await request.post(`${base}/webhooks/${hook.uid}/rotate-secret`, { headers: bearer(tokens.admin) })).json();
  rememberSecrets(rotated.secret);
  expect(github.config.secret).toBe(rotated.secret);
  expect((await fake.send(`repos/${target}`, 'issues', { action: 'edited' }))[0]!.status_code).toBe(202);

  // Deliveries GitHub could not send (here: pointed elsewhere for a moment) come back at the next pass.
  const url = github.config.url;
  github.config.url = 'http://127.0.0.1:9/unreachable';
  const missed: FakeDelivery[] = [];
  for (let i = 0; i < 3; i++) missed.push(...(await fake.send(`repos/${target}`, 'issues', { action: 'opened', issue: { number: 10 + i } })));
  github.config.url = url;
  expect(missed.every((d) => d.status_code === 0)).toBe(true);
  const check = await request.post(`${base}/webhooks/${hook.uid}/connection/check`, { headers: bearer(tokens.admin) });
  expect(check.status()).toBe(202);
  await expect
    .poll(async () => (await (await request.get(`${base}/webhooks/${hook.uid}/connection`, { headers: bearer(tokens.admin) })).json()).connection, { timeout: budget(60_000) })
    .toMatchObject({ lastRecovered: 3, lastError: null, checking: false });
  await expect.poll(() => missed.map((d) => fake.deliveries.some((a) => a.guid === d.guid && a.redelivery && a.status_code === 202))).toEqual([true, true, true]);
  const { deliveries } = await (await request.get(`${base}/webhooks/${hook.uid}/deliveries?limit=100`, { headers: bearer(tokens.admin) })).json();
  for (const d of missed) expect(deliveries.filter((e: { deliveryId: string; status: string }) => e.deliveryId === d.guid && e.status === 'accepted')).toHaveLength(1);

  // Disconnecting with deleteProviderHook removes GitHub's hook.
  expect((await request.delete(`${base}/webhooks/${hook.uid}/connection?deleteProviderHook=true`, { headers: bearer(tokens.admin) })).status()).toBe(204);
  expect(fake.hooks.has(github.id)).toBe(false);
  expect((await (await request.get(`${base}/webhooks/${hook.uid}/connection`, { headers: bearer(tokens.admin) })).json()).connection).toBeNull();
});

test('connect names the permission a token lacks, and refuses a webhook of another scheme', async ({ request, tokens }) => {
  fake.tokens.set('read-only-token', 'read');
  const hook = await createWebhook(request, tokens.admin, { name: 'gh-readonly', authMode: 'signature', signatureScheme: 'github' });
  await request.put(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin), data: { value: 'read-only-token' } });
  const refused = await request.put(`${base}/webhooks/${hook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'github_organization', apiBaseUrl: fake.url, credentialSecretName: secretName, target: 'octo-org' },
  });
  expect(refused.status()).toBe(422);
  expect((await refused.json()).error.fields.credentialSecretName).toMatch(/lacks the `admin:org_hook` permission/);

  const bearerHook = await createWebhook(request, tokens.admin, { name: 'bearer' });
  const wrongKind = await request.put(`${base}/webhooks/${bearerHook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: secretName, target: 'octo/app' },
  });
  expect(wrongKind.status()).toBe(409);
});

test('on a managed factory the definition files connect: apply lists the step, the API’s PUT is refused, removing the file’s connection disconnects', async ({ request, tokens, baseURL }) => {
  // Globex is seeded as a managed factory whose admin is the outsider (e2e/global-setup.ts).
  const globex = '/api/v1/factories/globex';
  const admin = bearer(tokens.outsider);
  const target = `octo/defs-${randomBytes(3).toString('hex')}`;
  const signing = `DEFS_APP_${randomBytes(3).toString('hex').toUpperCase()}`;
  for (const [name, value] of [[signing, 'placeholder'], [secretName, apiToken]]) {
    expect((await request.put(`${globex}/secrets/${name}`, { headers: admin, data: { value } })).status()).toBeLessThan(300);
  }
  const file = (connection: boolean) =>
    `authMode: signature\nsignatureScheme: github\nsecretName: ${signing}\n` +
    (connection ? `connection:\n  provider: github_repository\n  target: ${target}\n  credentialSecretName: ${secretName}\n  apiBaseUrl: ${fake.url}\n  eventTypes: [issues]\n` : '');
  const apply = async (files: Record<string, string>) => {
    const response = await request.post(`${globex}/definitions/apply`, { headers: admin, data: { files } });
    expect(response.status(), await response.text()).toBe(200);
    return response.json();
  };
  try {
    const plan = await (await request.post(`${globex}/definitions/plan`, { headers: admin, data: { files: { 'webhooks/defs-app.yaml': file(true) } } })).json();
    expect(plan.plan.actions).toEqual([expect.objectContaining({ action: 'create', name: 'defs-app', changes: [`connect to GitHub ${target}`] })]);

    const applied = await apply({ 'webhooks/defs-app.yaml': file(true) });
    const uid = applied.created[0].uid;
    const github = [...fake.hooks.values()].find((h) => h.scope === `repos/${target}`)!;
    rememberSecrets(github.config.secret);
    expect(applied.connections).toEqual([{ name: 'defs-app', uid, step: 'connect', ok: true, hookUrl: `${fake.url}/${target}/settings/hooks/${github.id}` }]);
    expect(github).toMatchObject({ events: ['issues'], config: { url: `${baseURL}/webhooks/w/${uid}` } });
    await expect.poll(() => fake.deliveries.filter((d) => d.hookId === github.id && d.event === 'ping').map((d) => d.status_code)).toEqual([202]);
    expect((await (await request.get(`${globex}/definitions`, { headers: admin })).json()).files['webhooks/defs-app.yaml']).toContain(`connection:\n  provider: github_repository\n  target: ${target}\n`);

    // Outside the files the connection cannot change on this factory.
    const put = await request.put(`${globex}/webhooks/${uid}/connection`, {
      headers: admin,
      data: { provider: 'github_repository', apiBaseUrl: fake.url, credentialSecretName: secretName, target },
    });
    expect(put.status()).toBe(409);
    expect((await put.json()).error.message).toMatch(/definition files: add `connection:` to the webhook's definition file and apply it/);
    expect((await request.delete(`${globex}/webhooks/${uid}/connection`, { headers: admin })).status()).toBe(409);

    const removed = await apply({ 'webhooks/defs-app.yaml': file(false) });
    expect(removed.connections).toEqual([{ name: 'defs-app', uid, step: 'disconnect', ok: true, hookUrl: null }]);
    expect((await (await request.get(`${globex}/webhooks/${uid}/connection`, { headers: admin })).json()).connection).toBeNull();
    expect(fake.hooks.has(github.id)).toBe(true);
  } finally {
    await apply({});
    for (const name of [signing, secretName]) await request.delete(`${globex}/secrets/${name}`, { headers: admin });
  }
});
