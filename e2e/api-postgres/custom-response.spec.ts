import { budget } from '../../scripts/speed.mjs';
import { servers } from '../../playwright.config';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { cli } from '../servers';

// The custom response on the PostgreSQL server: set through one of two app
// instances, it is the other's answer at once, as every webhook setting is
// (the row's trigger notifies every instance's live cache); and `tripline
// webhook response` sets, refuses and removes it while the server runs.

test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

test('a change on one instance is the other instance’s answer at once (PostgreSQL, two instances)', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'cross-instance-response' });
  const post = () => request.post(`${servers.apiPostgresB}${hook.url}`, { data: { at: Date.now() }, headers: { Authorization: `Bearer ${hook.secret}` } });
  // Warm instance B's cache with the default answer.
  expect((await post()).status()).toBe(202);

  const patched = await request.patch(`${servers.apiPostgres}/api/v1/factories/acme/webhooks/${hook.uid}`, {
    headers: bearer(tokens.admin),
    data: { customResponse: { status: 200, contentType: 'text/plain; charset=utf-8', body: 'changed' } },
  });
  expect(patched.status()).toBe(200);
  // The change notification reaches the other instance within milliseconds; the wait ends well before
  // the cache's own expiry (a minute) could explain it (e2e/api-postgres/multi-instance.spec.ts).
  const started = Date.now();
  await expect.poll(async () => (await post()).status(), { timeout: budget(5_000) }).toBe(200);
  test.info().annotations.push({ type: 'measured', description: `seen by the other instance after ${Date.now() - started} ms` });
  expect(await (await post()).text()).toBe('changed');
});

test('tripline webhook response sets, refuses and removes the custom response, and the running server answers with it', async ({ request, tokens }) => {
  const env = JSON.parse(process.env.E2E_API_POSTGRES_CLI_ENV!) as Record<string, string>;
  const hook = await createWebhook(request, tokens.admin, { name: 'cli-response', deliveryIdHeader: 'X-Event-Id' });
  const tripline = (args: string[], input?: string) => cli(env, ['webhook', 'response', '--uid', hook.uid, '--factory', 'acme', ...args], input);
  const send = async (id: string) => {
    const response = await request.post(hook.url, { data: { id }, headers: { Authorization: `Bearer ${hook.secret}`, 'X-Event-Id': id } });
    return [response.status(), response.headers()['content-type'] ?? null, await response.text()];
  };

  expect(tripline(['--status', '200', '--content-type', 'text', '--body', '[accepted]'])).toMatch(/: answers 200 text\/plain; charset=utf-8 "\[accepted\]"$/);
  expect(await send('c-1')).toEqual([200, 'text/plain; charset=utf-8', '[accepted]']);

  expect(tripline(['--status', '201', '--content-type', 'xml', '--body-stdin'], '<ok id="{{delivery_id}}"/>\n')).toMatch(/: answers 201 application\/xml/);
  expect(await send('c&2')).toEqual([201, 'application/xml', '<ok id="c&amp;2"/>']);

  expect(() => tripline(['--status', '500', '--content-type', 'json', '--body', '{}'])).toThrow(/customResponse\.status: Choose 200, 201, 202 or 204/);
  expect(() => tripline(['--status', '204', '--body', 'no'])).toThrow(/customResponse\.body: A 204 response has no body/);
  expect(() => tripline(['--status', '200', '--content-type', 'json', '--body', '{"id": {{delivery_id}}}'])).toThrow(/customResponse\.body: Enter valid JSON/);
  expect(await send('c-3')).toEqual([201, 'application/xml', '<ok id="c-3"/>']);

  expect(tripline(['--default'])).toMatch(/: answers 202 \{"delivery_id": \.\.\.\} \(the default\)$/);
  expect(await send('c-4')).toEqual([202, 'application/json', '{"delivery_id":"c-4"}']);
});
