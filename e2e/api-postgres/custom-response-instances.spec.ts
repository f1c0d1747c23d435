import { budget } from '../../scripts/speed.mjs';
import { servers } from '../../playwright.config';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';

// Two app instances on one PostgreSQL: a custom response set through one is
// the other's answer at once, as every webhook setting is (the row's trigger
// notifies every instance's live cache).

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
