import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, expect, test } from '../fixtures/api';
import { rawPost } from '../fixtures/ingress';
import { DEFINITIONS_SECRET } from '../fixtures/seed';

// Factory as code over the management API, on both databases: plan changes
// nothing, apply is all or nothing, and what it creates is served by the real
// ingress at once. Globex is seeded as a managed factory with the team secret
// ORDERS_TOKEN (e2e/global-setup.ts).

const base = '/api/v1/factories/globex/definitions';
const orders = 'authMode: token\nsecretName: ORDERS_TOKEN\n';

test('plan, apply, re-apply, a failing apply and a removed file, with the ingress serving what was applied', async ({ request, tokens, baseURL }) => {
  const admin = bearer(tokens.outsider);
  const post = (path: string, files: Record<string, string>) => request.post(`${base}/${path}`, { headers: admin, data: { files } });
  const deliver = async (url: string) =>
    (await rawPost(baseURL!, new URL(url).pathname, { Authorization: `Bearer ${DEFINITIONS_SECRET}` }, Buffer.from('{"order": 1}'))).status;

  const plan = await post('plan', { 'webhooks/orders.yaml': orders });
  expect(plan.status()).toBe(200);
  expect((await plan.json()).plan).toMatchObject({ valid: true, actions: [{ action: 'create', name: 'orders', uid: null }], problems: [] });
  expect((await (await request.get(base, { headers: admin })).json()).files).toEqual({});

  const applied = await post('apply', { 'webhooks/orders.yaml': orders });
  expect(applied.status()).toBe(200);
  const { created } = await applied.json();
  expect(created).toEqual([{ uid: expect.stringMatching(/^wh_/), name: 'orders', ingressUrl: expect.stringContaining(`/webhooks/w/`) }]);
  expect(await deliver(created[0].ingressUrl)).toBe(202);
  expect((await (await request.get(base, { headers: admin })).json()).files).toEqual({ 'webhooks/orders.yaml': expect.stringContaining('secretName: ORDERS_TOKEN') });

  // The same files again: nothing changes, the UID stays.
  const again = await (await post('apply', { 'webhooks/orders.yaml': orders })).json();
  expect(again).toMatchObject({ applied: true, changed: false, created: [], plan: { actions: [], unchanged: ['orders'] } });

  // One bad file fails the whole apply, with file, key and reason; the webhook keeps serving.
  const failed = await post('apply', {
    'webhooks/orders.yaml': 'authMode: token\nsecretName: ORDERS_TOKEN\ndeliveryIdHeader: X-Order-Id\n',
    'webhooks/refunds.yaml': 'authMode: token\nsecretName: NO_SUCH_SECRET\n',
    'webhooks/typo.yaml': 'authMode: token\nsecretname: ORDERS_TOKEN\n',
  });
  expect(failed.status()).toBe(422);
  const problems = (await failed.json()).error.problems as { file: string; key: string | null; message: string }[];
  expect(problems).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ file: 'webhooks/refunds.yaml', key: 'secretName', message: expect.stringContaining('NO_SUCH_SECRET') }),
      expect.objectContaining({ file: 'webhooks/typo.yaml', message: expect.stringContaining('unknown key "secretname"') }),
    ]),
  );
  const webhooks = (await (await request.get('/api/v1/factories/globex/webhooks', { headers: admin })).json()).webhooks;
  expect(webhooks.map((w: { name: string; deliveryIdHeader: string | null }) => [w.name, w.deliveryIdHeader])).toEqual([['orders', null]]);
  expect(await deliver(created[0].ingressUrl)).toBe(202);

  // A removed file deletes its webhook: senders get 404.
  const removed = await (await post('apply', {})).json();
  expect(removed.plan.actions).toEqual([expect.objectContaining({ action: 'delete', name: 'orders', uid: created[0].uid })]);
  expect(await deliver(created[0].ingressUrl)).toBe(404);
});

test('an apply given a plan’s digest applies that plan or nothing: a change to the factory since is a 409', async ({ request, tokens }) => {
  const admin = bearer(tokens.outsider);
  const post = (path: string, data: object) => request.post(`${base}/${path}`, { headers: admin, data });
  const files = { 'webhooks/invoices.yaml': orders };
  const shown = (await (await post('plan', { files })).json()).plan;
  expect(shown).toMatchObject({ valid: true, digest: expect.stringMatching(/^[0-9a-f]{64}$/), actions: [{ action: 'create', name: 'invoices' }] });

  // Another pipeline applies first: the same files would now also delete its webhook, which the plan shown did not say.
  expect((await post('apply', { files: { ...files, 'webhooks/refunds.yaml': orders } })).status()).toBe(200);
  const refused = await post('apply', { files, plan: shown.digest });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.message).toContain('The plan changed since it was shown');
  const names = async () => (await (await request.get('/api/v1/factories/globex/webhooks', { headers: admin })).json()).webhooks.map((w: { name: string }) => w.name);
  expect(await names()).toEqual(['invoices', 'refunds']);

  const malformed = await post('apply', { files, plan: 'latest' });
  expect(malformed.status()).toBe(422);
  expect((await malformed.json()).error.fields.plan).toContain('digest of a plan');

  const now = (await (await post('plan', { files })).json()).plan;
  expect(now.actions).toEqual([expect.objectContaining({ action: 'delete', name: 'refunds' })]);
  const applied = await post('apply', { files, plan: now.digest });
  expect(applied.status()).toBe(200);
  expect((await applied.json()).plan.digest).toBe(now.digest);
  expect(await names()).toEqual(['invoices']);
  expect((await post('apply', { files: {} })).status()).toBe(200);
});

test('apply is refused on a dashboard factory; definitions are for admins', async ({ request, tokens }) => {
  const files = { files: { 'webhooks/x.yaml': orders } };
  const refused = await request.post('/api/v1/factories/acme/definitions/apply', { headers: bearer(tokens.admin), data: files });
  expect(refused.status()).toBe(409);
  expect((await request.post('/api/v1/factories/acme/definitions/plan', { headers: bearer(tokens.admin), data: files })).status()).toBe(200);
  expect((await request.post('/api/v1/factories/acme/definitions/plan', { headers: bearer(tokens.editor), data: files })).status()).toBe(403);
  expect((await request.get('/api/v1/factories/globex/definitions', { headers: bearer(tokens.admin) })).status()).toBe(404);
});

test('a repository URL pointing inside the server’s network is refused before any connection is made', async ({ request, tokens }) => {
  // A real listener on this machine, standing for the database or a metadata service next to Tripline.
  const connections: number[] = [];
  const listener = http.createServer((_request, response) => response.end('INTERNAL BANNER'));
  listener.on('connection', () => connections.push(Date.now()));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as AddressInfo).port;
  try {
    const check = (url: string) =>
      request.post('/api/v1/factories/acme/definitions/repository/check', { headers: bearer(tokens.admin), data: { repository: { url, branch: 'main' } } });
    for (const [url, refusal] of [
      [`https://127.0.0.1:${port}/x.git`, /^Refused: private address/],
      [`https://localhost:${port}/x.git`, /^Refused: private address/],
      [`https://2130706433:${port}/x.git`, /^Refused: private address/],
      [`http://127.0.0.1:${port}/x.git`, /^Refused: scheme not allowed/],
      ['file:///etc', /^Refused: scheme not allowed/],
    ] as const) {
      const response = await check(url);
      expect(response.status(), url).toBe(422);
      const body = await response.json();
      expect(body.error.fields.url, url).toMatch(refusal);
      expect(JSON.stringify(body)).not.toContain('INTERNAL BANNER');
    }
    // Applying is refused the same way, and the factory stays as it was.
    const apply = await request.post('/api/v1/factories/acme/definitions/repository/apply', {
      headers: bearer(tokens.admin),
      data: { repository: { url: `https://127.0.0.1:${port}/x.git` }, commit: 'a'.repeat(40) },
    });
    expect(apply.status()).toBe(422);
    expect(connections).toEqual([]);
    expect((await (await request.get('/api/v1/factories/acme/definitions', { headers: bearer(tokens.admin) })).json()).configSource).toBe('dashboard');
    // Admins only, like every definitions endpoint.
    expect((await request.post('/api/v1/factories/acme/definitions/repository/check', { headers: bearer(tokens.editor), data: {} })).status()).toBe(403);
  } finally {
    await new Promise((resolve) => listener.close(resolve));
  }
});
