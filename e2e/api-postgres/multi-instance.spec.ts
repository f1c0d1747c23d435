import { budget } from '../../scripts/speed.mjs';
import { expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { servers } from '../../playwright.config';

// Two app instances on one PostgreSQL, as behind a load balancer: both rate
// budgets count requests to either instance together, and a change made on
// one instance is honoured by the other's ingress cache at once.

test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

test('the delivery rate limit is shared by two instances', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'shared-rate' });
  const statuses: number[] = [];
  for (let i = 0; i < 61; i++) {
    const server = i % 2 === 0 ? servers.apiPostgres : servers.apiPostgresB;
    statuses.push((await request.post(`${server}${hook.url}`, { data: { i }, headers: { Authorization: `Bearer ${hook.secret}` } })).status());
  }
  expect(statuses.slice(0, 60)).toEqual(Array(60).fill(202));
  expect(statuses[60]).toBe(429);
});

test('the failed-authentication budget is shared by two instances', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'shared-auth' });
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) {
    const server = i % 2 === 0 ? servers.apiPostgres : servers.apiPostgresB;
    statuses.push((await request.post(`${server}${hook.url}`, { data: { i }, headers: { Authorization: 'Bearer wrong' } })).status());
  }
  expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
  expect(statuses[20]).toBe(429);
});

test('disabling, rotating or deleting on one instance takes effect on the other at once', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'cross-instance' });
  const post = (server: string, secret: string | null) =>
    request.post(`${server}${hook.url}`, { data: { at: Date.now() }, headers: { Authorization: `Bearer ${secret}` } });
  // Warm instance B's cache.
  for (let i = 0; i < 3; i++) expect((await post(servers.apiPostgresB, hook.secret)).status()).toBe(202);

  // The change notification reaches the other instance within milliseconds. The wait must end well before
  // the cache's own expiry (a minute after an entry is stored, lib/ingress/live-cache.ts) could explain
  // the change instead: budget(5_000) is at most 40 s, even at the largest speed factor.
  const eventually = async (what: string, check: () => Promise<number>, status: number) => {
    const started = Date.now();
    const deadline = started + budget(5_000);
    let last = await check();
    while (last !== status && Date.now() < deadline) last = await check();
    test.info().annotations.push({ type: 'measured', description: `${what}: seen by the other instance after ${Date.now() - started} ms` });
    expect(last, what).toBe(status);
  };

  await request.patch(`${servers.apiPostgres}/api/v1/factories/acme/webhooks/${hook.uid}`, { headers: { Authorization: `Bearer ${tokens.admin}` }, data: { enabled: false } });
  await eventually('disabled', async () => (await post(servers.apiPostgresB, hook.secret)).status(), 404);

  await request.patch(`${servers.apiPostgres}/api/v1/factories/acme/webhooks/${hook.uid}`, { headers: { Authorization: `Bearer ${tokens.admin}` }, data: { enabled: true } });
  await eventually('enabled', async () => (await post(servers.apiPostgresB, hook.secret)).status(), 202);

  const rotated = await (
    await request.post(`${servers.apiPostgres}/api/v1/factories/acme/webhooks/${hook.uid}/rotate-secret`, { headers: { Authorization: `Bearer ${tokens.admin}` } })
  ).json();
  await eventually('rotated', async () => (await post(servers.apiPostgresB, hook.secret)).status(), 401);
  expect((await post(servers.apiPostgresB, rotated.secret)).status()).toBe(202);

  await request.delete(`${servers.apiPostgres}/api/v1/factories/acme/webhooks/${hook.uid}`, { headers: { Authorization: `Bearer ${tokens.admin}` } });
  await eventually('deleted', async () => (await post(servers.apiPostgresB, rotated.secret)).status(), 404);
});
