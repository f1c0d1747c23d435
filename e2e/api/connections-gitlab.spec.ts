import { randomBytes } from 'node:crypto';
import { budget } from '../../scripts/speed.mjs';
import { startGitLabFake, type FakeHookEvent, type GitLabFake } from '../../tests/support/fakes/gitlab';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { rememberSecrets } from '../fixtures/secrets';

// Connecting a webhook to a GitLab project through the API, over real HTTP,
// on embedded PGlite and on PostgreSQL. The fake GitLab
// (tests/support/fakes/gitlab.ts) validates every request and response
// against the JSON Schemas written from GitLab's REST docs and sends its
// deliveries, with the hook's token, to the server's real ingress; the
// servers allow API base URLs on loopback (TRIPLINE_CONNECTION_ALLOW=http,private).
// The server's pass resends at GitLab's real pace, one every 13.3 s, so the
// outage here is two deliveries.

const base = '/api/v1/factories/acme';
let fake: GitLabFake;
const apiToken = `glpat-${randomBytes(15).toString('base64url')}`;
const secretName = `GL_TOKEN_${randomBytes(4).toString('hex').toUpperCase()}`;

test.describe.configure({ timeout: budget(150_000) });

test.beforeAll(async () => {
  fake = await startGitLabFake();
  fake.tokens.set(apiToken, 'maintainer');
  rememberSecrets(apiToken);
});
test.afterAll(async () => fake?.close());
test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
  await request.delete(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin) });
  expect(fake.problems).toEqual([]);
});

const mr = (iid: number) => ({ object_kind: 'merge_request', event_type: 'merge_request', object_attributes: { iid, action: 'open' } });

test('connect creates the GitLab hook whose deliveries verify; rotating updates its token; missed deliveries come back by GitLab’s resend on Check now; disconnect deletes it', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'gl-connected', authMode: 'signature', signatureScheme: 'gitlab' });
  expect((await request.put(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin), data: { value: apiToken } })).status()).toBeLessThan(300);
  const target = `octo/app-${randomBytes(3).toString('hex')}`;
  const projectId = fake.addProject(target);

  const connected = await request.put(`${base}/webhooks/${hook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'gitlab_project', apiBaseUrl: fake.url, credentialSecretName: secretName, target, eventTypes: ['merge_request'] },
  });
  const text = await connected.text();
  expect(connected.status(), text).toBe(200);
  const { connection } = JSON.parse(text);
  const gitlab = fake.hooks.get(Number(connection.providerHookId))!;
  rememberSecrets(gitlab.token);
  expect(gitlab).toMatchObject({ projectId, url: `${baseURL}${hook.url}`, flags: expect.objectContaining({ merge_requests_events: true, push_events: false }) });
  expect(connection.providerHookUrl).toBe(`${new URL(fake.url).origin}/${target}/-/hooks/${gitlab.id}/edit`);
  expect(text).not.toContain(gitlab.token!);
  expect(text).not.toContain(apiToken);

  const [live] = await fake.send(projectId, mr(1));
  expect(live!.response_status).toBe('202');

  // Rotating the secret sets the new token on GitLab's hook in the same request.
  const rotated = await (await request.post(`${base}/webhooks/${hook.uid}/rotate-secret`, { headers: bearer(tokens.admin) })).json();
  rememberSecrets(rotated.secret);
  expect(gitlab.token).toBe(rotated.secret);
  expect((await fake.send(projectId, mr(2)))[0]!.response_status).toBe('202');

  // Deliveries GitLab could not send (here: pointed elsewhere for a moment) come back at the next pass.
  const url = gitlab.url;
  gitlab.url = 'http://127.0.0.1:9/unreachable';
  const missed: FakeHookEvent[] = [];
  for (let i = 0; i < 2; i++) missed.push(...(await fake.send(projectId, mr(10 + i))));
  gitlab.url = url;
  expect(missed.every((d) => d.response_status === 'internal error')).toBe(true);
  expect((await request.post(`${base}/webhooks/${hook.uid}/connection/check`, { headers: bearer(tokens.admin) })).status()).toBe(202);
  await expect
    .poll(async () => (await (await request.get(`${base}/webhooks/${hook.uid}/connection`, { headers: bearer(tokens.admin) })).json()).connection, { timeout: budget(90_000) })
    .toMatchObject({ lastRecovered: 2, lastError: null, checking: false });
  const { deliveries } = await (await request.get(`${base}/webhooks/${hook.uid}/deliveries?limit=100`, { headers: bearer(tokens.admin) })).json();
  for (const d of missed) expect(deliveries.filter((e: { deliveryId: string; status: string }) => e.deliveryId === d.idempotencyKey && e.status === 'accepted')).toHaveLength(1);
  expect(fake.limited).toBe(0);

  expect((await request.delete(`${base}/webhooks/${hook.uid}/connection?deleteProviderHook=true`, { headers: bearer(tokens.admin) })).status()).toBe(204);
  expect(fake.hooks.has(gitlab.id)).toBe(false);
});

test('connect says a token needs the api scope and the Maintainer role, and names GitLab’s event types', async ({ request, tokens }) => {
  fake.tokens.set('developer-token', 'developer');
  const target = `octo/dev-${randomBytes(3).toString('hex')}`;
  fake.addProject(target);
  const hook = await createWebhook(request, tokens.admin, { name: 'gl-developer', authMode: 'signature', signatureScheme: 'gitlab' });
  await request.put(`${base}/secrets/${secretName}`, { headers: bearer(tokens.admin), data: { value: 'developer-token' } });
  const refused = await request.put(`${base}/webhooks/${hook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'gitlab_project', apiBaseUrl: fake.url, credentialSecretName: secretName, target },
  });
  expect(refused.status()).toBe(422);
  expect((await refused.json()).error.fields.credentialSecretName).toMatch(/the `api` scope and the Maintainer role/);

  const job = await request.put(`${base}/webhooks/${hook.uid}/connection`, {
    headers: bearer(tokens.admin),
    data: { provider: 'gitlab_project', apiBaseUrl: fake.url, credentialSecretName: secretName, target, eventTypes: ['job'] },
  });
  expect(job.status()).toBe(422);
  expect((await job.json()).error.fields.eventTypes).toMatch(/named build/);
});
