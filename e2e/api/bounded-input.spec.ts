import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, streamUpload } from '../fixtures/ingress';

// Bounded input over real HTTP, on embedded PGlite and on PostgreSQL: the
// management API's 1 MB body limit, deliveries nested thousands of levels
// deep served back as their exact text, and URLs with malformed
// percent-encoding answered as wrong URLs (never 500).

const MB = 1024 * 1024;

test.describe.configure({ mode: 'serial' });
test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

test('management API bodies over 1 MB are 413 in the API error shape, declared or streamed; 1 MB exactly is read', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'api-body' });
  const create = '/api/v1/factories/acme/webhooks';
  const auth = { ...bearer(tokens.admin), 'Content-Type': 'application/json' };
  const padded = (json: string, size: number) => {
    const buffer = Buffer.alloc(size, 0x20);
    buffer.write(json, 0);
    return buffer;
  };
  const expect413 = (response: { status: number; body: string }) => {
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ error: { code: 'payload_too_large', message: expect.stringContaining('1 MB') } });
  };

  // One byte over, with Content-Length.
  expect413(await rawPost(baseURL!, create, auth, padded('{"name":"too-big"}', MB + 1)));
  // A 50 MB declaration is refused from the header, after one small chunk.
  expect413(await rawPost(baseURL!, create, { ...auth, 'Content-Length': 50 * MB }, (req) => req.write(Buffer.alloc(1024, 0x20))));
  // Streamed without a length: stopped once it passes the limit.
  expect413(await rawPost(baseURL!, create, { ...auth, 'Transfer-Encoding': 'chunked' }, streamUpload(3 * MB)));
  // Exactly 1 MB is read and validated as usual (422: the name is not valid).
  const exact = await rawPost(baseURL!, create, auth, padded('{"name":"NOT VALID"}', MB));
  expect(exact.status).toBe(422);
  // Unauthenticated callers never get their body read: 401 whatever the size.
  expect((await rawPost(baseURL!, create, { 'Content-Type': 'application/json', 'Content-Length': 50 * MB }, (req) => req.write('{'))).status).toBe(401);
  // Other routes read their bodies through the same place.
  const patch = await request.patch(`/api/v1/factories/acme/webhooks/${hook.uid}`, { headers: auth, data: padded('{"enabled":true}', MB + 10) });
  expect(patch.status()).toBe(413);
  expect((await request.patch(`/api/v1/factories/acme/webhooks/${hook.uid}`, { headers: auth, data: padded('{"enabled":true}', 4096) })).status()).toBe(200);
});

test('a delivery nested 5,000 levels deep is accepted and served back as its exact text', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'deep' });
  const auth = { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json' };
  // 5,000 levels, and 60,000 (240 KB, still under the 256 KiB limit).
  for (const depth of [5_000, 60_000]) {
    const body = `${'{"a":['.repeat(depth / 2)} 1.10 ${']}'.repeat(depth / 2)}`;
    const posted = await request.post(hook.url, { headers: auth, data: Buffer.from(body) });
    expect(posted.status(), `depth ${depth}`).toBe(202);
    const { deliveries } = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries?limit=1`, { headers: bearer(tokens.admin) })).json();
    const response = await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${deliveries[0].id}`, { headers: bearer(tokens.viewer) });
    expect(response.status(), `depth ${depth}`).toBe(200);
    const text = await response.text();
    expect(text.endsWith(`,"payload":${body}}}`), `depth ${depth}`).toBe(true);
    // Still one JSON document (JSON.parse does not recurse in V8).
    const parsed = JSON.parse(text);
    expect(parsed.delivery).toMatchObject({ status: 'accepted', size: Buffer.byteLength(body) });
  }
});

test('malformed percent-encoding: the ingress answers its one 404, the API and pages 400, never 500; pages refuse a NUL', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'percent' });
  const unknown = await request.post('/webhooks/w/wh_unknownUnknownUnknown00', { data: {} });
  // The same status, body and content headers. (Transport headers differ:
  // Next.js compresses its own answers, the server entry answers these
  // before Next; the wrong path is refused before any webhook is looked up,
  // so they say nothing about which UIDs exist.)
  const normalise = async (response: import('@playwright/test').APIResponse) => ({
    status: response.status(),
    type: response.headers()['content-type'],
    cache: response.headers()['cache-control'],
    body: await response.text(),
  });
  const reference = await normalise(unknown);
  expect(reference.status).toBe(404);
  for (const path of ['/webhooks/w/%ZZ', `/webhooks/w/${hook.uid}/%ZZ`, `/webhooks/w/${hook.uid}/%E0%A4%A`, '/webhooks/w/%']) {
    for (const method of ['POST', 'GET'] as const) {
      const response = await request.fetch(path, { method, data: method === 'POST' ? { a: 1 } : undefined, headers: { Authorization: `Bearer ${hook.secret}` } });
      expect(await normalise(response), `${method} ${path}`).toEqual(reference);
    }
  }
  for (const path of ['/api/v1/factories/%ZZ/webhooks', `/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/%ZZ`]) {
    const response = await request.get(path, { headers: bearer(tokens.admin) });
    expect(response.status(), path).toBe(400);
    expect((await response.json()).error.code, path).toBe('bad_request');
  }
  // A NUL decodes, but no page can query with it (PostgreSQL refuses it: a 500 for a signed-in reader).
  const pages = ['/f/%ZZ', '/f/acme/automations/webhooks/%ZZ', '/f/%00', `/f/acme/automations/webhooks/${hook.uid}%00`, `/f/acme/automations/webhooks/${hook.uid}?q=%00abc`, `/f/acme/automations/webhooks/${hook.uid}/replay?automation=%00`];
  for (const path of pages) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(400);
  }
  // Raw paths, as a client that does not normalise URLs sends them.
  const raw = await rawPost(baseURL!, '/webhooks/w/%ZZ%', { 'Content-Type': 'application/json' }, Buffer.from('{}'));
  expect(raw.status).toBe(404);
  // Nothing was logged for the webhook, and it still works.
  expect((await request.post(hook.url, { data: { ok: true }, headers: { Authorization: `Bearer ${hook.secret}` } })).status()).toBe(202);
});
