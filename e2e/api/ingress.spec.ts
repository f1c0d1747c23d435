import { createHmac } from 'node:crypto';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, rssKiB, signedHeaders, streamUpload } from '../fixtures/ingress';

// POST /webhooks/w/<uid> over real HTTP, on embedded PGlite and on
// PostgreSQL: every status of the spec and every rule of the ingress.

const LIMIT = 256 * 1024;

type Entry = { id: string; status: string; refusedCount?: number };
const countBy = (entries: Entry[]) => entries.reduce((acc: Record<string, number>, d) => ({ ...acc, [d.status]: (acc[d.status] ?? 0) + 1 }), {});
/** Refusals counted by the refused summaries (one per minute: two if the test straddled a minute). */
const refusedTotal = (entries: Entry[]) => entries.filter((d) => d.status === 'refused').reduce((sum, d) => sum + (d.refusedCount ?? 0), 0);

const log = async (request: import('@playwright/test').APIRequestContext, admin: string, uid: string, query = '') =>
  (await request.get(`/api/v1/factories/acme/webhooks/${uid}/deliveries${query}`, { headers: bearer(admin) })).json();

test.describe.configure({ mode: 'serial' });
test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

test('unknown, disabled and deleted webhooks and wrong UIDs answer the same 404', async ({ request, tokens }) => {
  const disabled = await createWebhook(request, tokens.admin, { name: 'disabled' });
  await request.patch(`/api/v1/factories/acme/webhooks/${disabled.uid}`, { headers: bearer(tokens.admin), data: { enabled: false } });
  const deleted = await createWebhook(request, tokens.admin, { name: 'deleted' });
  await request.delete(`/api/v1/factories/acme/webhooks/${deleted.uid}`, { headers: bearer(tokens.admin) });

  const answers = [];
  for (const url of ['/webhooks/w/wh_unknownUnknownUnknown00', disabled.url, deleted.url, '/webhooks/w/not a uid!']) {
    const response = await request.post(url, { data: { hello: 'world' }, headers: { Authorization: `Bearer ${disabled.secret}` } });
    const headers = { ...response.headers() };
    // The date and the request's own id differ on every response, whatever the URL.
    delete headers.date;
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    delete headers['x-request-id'];
    answers.push({ status: response.status(), headers, body: await response.text() });
  }
  expect(answers[0]!.status).toBe(404);
  expect(JSON.parse(answers[0]!.body)).toEqual({ error: { code: 'not_found', message: 'No webhook at this URL' } });
  for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);

  // Re-enabling makes it answer again, and disabling kept its history.
  await request.patch(`/api/v1/factories/acme/webhooks/${disabled.uid}`, { headers: bearer(tokens.admin), data: { enabled: true } });
  const again = await request.post(disabled.url, { data: { hello: 'again' }, headers: { Authorization: `Bearer ${disabled.secret}` } });
  expect(again.status()).toBe(202);
});

test('only POST: other methods on a live webhook get 405 with Allow: POST', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'methods' });
  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
    const response = await request.fetch(hook.url, { method });
    expect(response.status(), method).toBe(405);
    expect(response.headers()['allow']).toBe('POST');
  }
});

test('a URL pasted with a trailing slash is the same URL: no redirect, accepted and logged', async ({ request, tokens }) => {
  // Senders do not follow redirects for POST: a 308 would lose every delivery with no log entry.
  const hook = await createWebhook(request, tokens.admin, { name: 'slash' });
  const auth = { Authorization: `Bearer ${hook.secret}` };
  const accepted = await request.post(`${hook.url}/`, { data: { slash: 1 }, headers: auth, maxRedirects: 0 });
  expect(accepted.status()).toBe(202);
  const wrong = await request.post(`${hook.url}//`, { data: { slash: 2 }, headers: { Authorization: 'Bearer wrong' }, maxRedirects: 0 });
  expect(wrong.status()).toBe(401);
  const unknown = await request.post('/webhooks/w/wh_unknownUnknownUnknown00/', { data: {}, headers: auth, maxRedirects: 0 });
  expect(unknown.status()).toBe(404);
  expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: 'No webhook at this URL' } });
  const { deliveries } = await log(request, tokens.admin, hook.uid);
  expect(deliveries.map((entry: Entry) => entry.status)).toEqual(['rejected_auth', 'accepted']);
  expect(deliveries[1].deliveryId).toBe((await accepted.json()).delivery_id);
});

test('any JSON value is accepted, Content-Type is not enforced, invalid JSON and UTF-8 are 400', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'json' });
  const auth = { Authorization: `Bearer ${hook.secret}` };
  for (const body of ['{"a":1}', '[1,2]', '"text"', '42', 'true', 'null', ' {"spaced": true} ']) {
    const response = await rawPost(baseURL!, hook.url, { ...auth, 'Content-Type': 'text/plain' }, Buffer.from(body));
    expect(response.status, body).toBe(202);
    expect(JSON.parse(response.body)).toEqual({ delivery_id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  }
  for (const body of [Buffer.from('{"a":'), Buffer.from(''), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), Buffer.from('\ufeff{}')]) {
    const response = await rawPost(baseURL!, hook.url, auth, body);
    expect(response.status, body.toString('hex')).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe('invalid_json');
  }
  const { deliveries } = await log(request, tokens.admin, hook.uid, '?status=rejected_invalid_json');
  expect(deliveries).toHaveLength(4);
});

test('the size limit is exact: 262,144 bytes accepted, one more is 413', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'size' });
  const auth = { Authorization: `Bearer ${hook.secret}` };
  const exact = Buffer.alloc(LIMIT, 0x20);
  exact.write('"x"', 0);
  expect((await rawPost(baseURL!, hook.url, auth, exact)).status).toBe(202);
  const over = Buffer.alloc(LIMIT + 1, 0x20);
  over.write('"y"', 0);
  const refused = await rawPost(baseURL!, hook.url, auth, over);
  expect(refused.status).toBe(413);
  expect(JSON.parse(refused.body).error.code).toBe('payload_too_large');

  // Streamed without a Content-Length: stopped while reading.
  const chunked = await rawPost(baseURL!, hook.url, { ...auth, 'Transfer-Encoding': 'chunked' }, streamUpload(LIMIT + 1));
  expect(chunked.status).toBe(413);

  const { deliveries } = await log(request, tokens.admin, hook.uid);
  expect(deliveries.map((d: { status: string }) => d.status)).toEqual(['rejected_too_large', 'rejected_too_large', 'accepted']);
  expect(deliveries[1].size).toBe(LIMIT + 1);
  expect(deliveries[2].size).toBe(LIMIT);
});

test('a 10 MB upload is answered 413 at once from Content-Length, without the server buffering it', async ({ request, tokens, baseURL }, testInfo) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'huge' });
  const pid = testInfo.project.name === 'api-postgres' ? process.env.E2E_PID_API_POSTGRES : process.env.E2E_PID_API_PGLITE;
  const before = rssKiB(pid);
  const tenMiB = 10 * 1024 * 1024;
  for (let i = 0; i < 3; i++) {
    // Only the headers and one small chunk are sent: the answer must not wait for the rest.
    const response = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Length': tenMiB }, (req) => {
      req.write(Buffer.alloc(1024, 0x20));
    });
    expect(response.status).toBe(413);
  }
  const declaredFull = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Length': tenMiB }, streamUpload(tenMiB));
  expect(declaredFull.status).toBe(413);
  const streamed = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Transfer-Encoding': 'chunked' }, streamUpload(tenMiB));
  expect(streamed.status).toBe(413);
  // A declared size past what the log's size column holds (32 bits): 413 all the same, recorded as its largest.
  const declaredHuge = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}`, 'Content-Length': '3000000000' }, (req) => {
    req.write(Buffer.alloc(1024, 0x20));
  });
  expect(declaredHuge.status).toBe(413);
  const after = rssKiB(pid);
  if (before !== null && after !== null) expect(after - before).toBeLessThan(40 * 1024);
  const { deliveries } = await log(request, tokens.admin, hook.uid);
  expect(deliveries.map((d: { status: string }) => d.status)).toEqual(Array(6).fill('rejected_too_large'));
  expect(deliveries[0]).toMatchObject({ size: 2_147_483_647 });
  expect(deliveries[2]).toMatchObject({ size: tenMiB });
});

test('bearer and URL tokens: missing, wrong and rotated-out credentials are 401', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'bearer' });
  expect((await request.post(hook.url, { data: { ok: 1 } })).status()).toBe(401);
  expect((await request.post(hook.url, { data: { ok: 1 }, headers: { Authorization: 'Bearer nope' } })).status()).toBe(401);
  expect((await request.post(hook.url, { data: { ok: 1 }, headers: { Authorization: `Basic ${hook.secret}` } })).status()).toBe(401);
  const ok = await request.post(hook.url, { data: { ok: 1 }, headers: { Authorization: `Bearer ${hook.secret}` } });
  expect(ok.status()).toBe(202);
  const rotated = await (await request.post(`/api/v1/factories/acme/webhooks/${hook.uid}/rotate-secret`, { headers: bearer(tokens.admin) })).json();
  const old = await request.post(hook.url, { data: { ok: 2 }, headers: { Authorization: `Bearer ${hook.secret}` } });
  expect(old.status()).toBe(401);
  expect((await old.json()).error).toEqual({ code: 'unauthorized', message: 'Authentication failed' });
  expect((await request.post(hook.url, { data: { ok: 2 }, headers: { Authorization: `Bearer ${rotated.secret}` } })).status()).toBe(202);

  const urlHook = await createWebhook(request, tokens.admin, { name: 'urltoken', authMode: 'url_token' });
  expect(urlHook.url).toMatch(/\/webhooks\/w\/wh_\w+\/[\w-]{43}$/);
  expect((await request.post(urlHook.url, { data: { ok: 1 } })).status()).toBe(202);
  expect((await request.post(`/webhooks/w/${urlHook.uid}/wrong-token`, { data: { ok: 1 } })).status()).toBe(401);
  expect((await request.post(`/webhooks/w/${urlHook.uid}`, { data: { ok: 1 } })).status()).toBe(401);
  // A path token on a bearer webhook is an unknown URL.
  expect((await request.post(`${hook.url}/${rotated.secret}`, { data: { ok: 1 } })).status()).toBe(404);

  const { deliveries } = await log(request, tokens.admin, hook.uid, '?status=rejected_auth');
  expect(deliveries.length).toBe(4);
  expect(deliveries.every((d: { detail: string }) => typeof d.detail === 'string')).toBe(true);
});

for (const scheme of ['standard-webhooks', 'github', 'stripe', 'slack', 'linear', 'shopify', 'gitlab']) {
  test(`${scheme}: a correctly signed request is accepted, unsigned and tampered ones are 401`, async ({ request, tokens }) => {
    const providerSecret = scheme === 'standard-webhooks' ? undefined : `secret-${scheme}-${Date.now()}`;
    const hook = await createWebhook(request, tokens.admin, { name: scheme, authMode: 'signature', signatureScheme: scheme, providerSecret });
    const secret = hook.secret ?? providerSecret!;
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ event: 'test', scheme, webhookTimestamp: now * 1000 });
    const headers = signedHeaders(scheme, secret, body, now);

    const good = await request.post(hook.url, { data: body, headers: { ...headers, 'Content-Type': 'application/json' } });
    expect(good.status(), await good.text()).toBe(202);
    expect((await request.post(hook.url, { data: body })).status()).toBe(401);
    // GitLab's token does not sign the body, so tampering there means a wrong token.
    const tampered = scheme === 'gitlab' ? { ...headers, 'X-Gitlab-Token': `${secret}x` } : headers;
    const tamperedBody = scheme === 'gitlab' ? body : body.replace('test', 'tost');
    expect((await request.post(hook.url, { data: tamperedBody, headers: tampered })).status()).toBe(401);
  });
}

test('Svix-compatible svix-* headers are accepted for Standard Webhooks', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'svix', authMode: 'signature', signatureScheme: 'standard-webhooks' });
  const body = '{"type":"svix.test"}';
  const signed = signedHeaders('standard-webhooks', hook.secret!, body);
  const svix = { 'svix-id': signed['webhook-id']!, 'svix-timestamp': signed['webhook-timestamp']!, 'svix-signature': signed['webhook-signature']! };
  const response = await request.post(hook.url, { data: body, headers: svix });
  expect(response.status()).toBe(202);
  expect((await response.json()).delivery_id).toBe(signed['webhook-id']);
});

test('signatures older than five minutes are 401 for Standard Webhooks and Stripe', async ({ request, tokens }) => {
  const stripeSecret = 'whsec_stripe_stale_test';
  const stripe = await createWebhook(request, tokens.admin, { name: 'stripe-stale', authMode: 'signature', signatureScheme: 'stripe', providerSecret: stripeSecret });
  const sw = await createWebhook(request, tokens.admin, { name: 'sw-stale', authMode: 'signature', signatureScheme: 'standard-webhooks' });
  const old = Math.floor(Date.now() / 1000) - 301;
  const body = '{"stale":true}';
  expect((await request.post(stripe.url, { data: body, headers: signedHeaders('stripe', stripeSecret, body, old) })).status()).toBe(401);
  expect((await request.post(sw.url, { data: body, headers: signedHeaders('standard-webhooks', sw.secret!, body, old) })).status()).toBe(401);
  const { deliveries } = await log(request, tokens.admin, sw.uid);
  expect(deliveries[0]).toMatchObject({ status: 'rejected_auth', detail: 'signature timestamp outside the allowed window' });
});

// Every published vector through the ingress: e2e/api/provider-vectors.spec.ts.

test('delivery identity: configured header, provider header, X-Service-Delivery-Id, then body hash', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'identity', deliveryIdHeader: 'X-Job-Run' });
  const auth = { Authorization: `Bearer ${hook.secret}` };
  const post = async (headers: Record<string, string>, data: unknown) =>
    (await (await request.post(hook.url, { data, headers: { ...auth, ...headers } })).json()).delivery_id;
  expect(await post({ 'X-Job-Run': 'run-1', 'X-Service-Delivery-Id': 'svc-1' }, { n: 1 })).toBe('run-1');
  expect(await post({ 'X-Service-Delivery-Id': 'svc-2' }, { n: 2 })).toBe('svc-2');
  expect(await post({ 'X-Job-Run': '   ' }, { n: 3 })).toMatch(/^sha256:/);
  expect(await post({ 'X-Job-Run': 'x'.repeat(201) }, { n: 4 })).toMatch(/^id-sha256:[0-9a-f]{64}$/);
  expect(await post({ 'X-Job-Run': 'x'.repeat(200) }, { n: 5 })).toBe('x'.repeat(200));

  // X-Request-Id as the sender's delivery ID: the server entry sets a request ID of its own on that header, and the ID is still the sender's.
  const requestIds = await createWebhook(request, tokens.admin, { name: 'request-ids', deliveryIdHeader: 'X-Request-Id' });
  const sendRequestId = async () => request.post(requestIds.url, { data: { n: 6 }, headers: { Authorization: `Bearer ${requestIds.secret}`, 'X-Request-Id': 'r-1' } });
  const firstSend = await sendRequestId();
  expect(await firstSend.json()).toEqual({ delivery_id: 'r-1' });
  expect(firstSend.headers()['x-request-id']).not.toBe('r-1');
  expect(await (await sendRequestId()).json()).toEqual({ delivery_id: 'r-1' });
  expect((await log(request, tokens.admin, requestIds.uid)).deliveries.map((entry: { status: string }) => entry.status)).toEqual(['duplicate', 'accepted']);

  const github = await createWebhook(request, tokens.admin, { name: 'gh-identity', authMode: 'signature', signatureScheme: 'github', providerSecret: 'gh-secret' });
  const body = '{"zen":"Keep it logically awesome."}';
  const headers = { ...signedHeaders('github', 'gh-secret', body), 'X-GitHub-Delivery': 'guid-123', 'X-Service-Delivery-Id': 'svc-gh' };
  expect((await (await request.post(github.url, { data: body, headers })).json()).delivery_id).toBe('guid-123');
});

test('Mailgun: a signature copied onto another event is a Duplicate, and one over a day old is refused; Dropbox: equal bodies are separate deliveries', async ({ request, tokens }) => {
  // Mailgun's signature covers its timestamp and one-time token, not the event: the token is the delivery's identity.
  const mailgun = await createWebhook(request, tokens.admin, { name: 'mailgun-replay', authMode: 'signature', signatureScheme: 'mailgun', providerSecret: 'mg-signing-key' });
  const signed = (timestamp: number, token: string, event: string) => {
    const signature = createHmac('sha256', 'mg-signing-key').update(`${timestamp}${token}`).digest('hex');
    return JSON.stringify({ signature: { timestamp: String(timestamp), token, signature }, 'event-data': { event } });
  };
  const now = Math.floor(Date.now() / 1000);
  const token = 'a'.repeat(50);
  const first = await request.post(mailgun.url, { data: signed(now, token, 'delivered'), headers: { 'Content-Type': 'application/json' } });
  expect(first.status()).toBe(202);
  expect(await first.json()).toEqual({ delivery_id: token });
  const forged = await request.post(mailgun.url, { data: signed(now, token, 'unsubscribed'), headers: { 'Content-Type': 'application/json' } });
  expect(await forged.json()).toEqual({ delivery_id: token });
  const stale = await request.post(mailgun.url, { data: signed(now - 2 * 86_400, 'b'.repeat(50), 'delivered'), headers: { 'Content-Type': 'application/json' } });
  expect(stale.status()).toBe(401);
  expect((await log(request, tokens.admin, mailgun.uid)).deliveries.map((entry: { status: string }) => entry.status)).toEqual(['rejected_auth', 'duplicate', 'accepted']);

  // Every change to a Dropbox account sends the same body: each is a delivery of its own.
  const dropbox = await createWebhook(request, tokens.admin, { name: 'dropbox-same', authMode: 'signature', signatureScheme: 'dropbox', providerSecret: 'db-app-secret' });
  const body = JSON.stringify({ list_folder: { accounts: ['dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc'] }, delta: { users: [12345678] } });
  const notify = async () => (await (await request.post(dropbox.url, { data: body, headers: { 'Content-Type': 'application/json', 'X-Dropbox-Signature': createHmac('sha256', 'db-app-secret').update(body).digest('hex') } })).json()).delivery_id as string;
  const [one, two] = [await notify(), await notify()];
  expect(one).not.toBe(two);
  expect((await log(request, tokens.admin, dropbox.uid)).deliveries.map((entry: { status: string }) => entry.status)).toEqual(['accepted', 'accepted']);
});

test('dedup: a repeated identity is 202 with the same delivery_id and logged Duplicate; rejections claim nothing', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'dedup' });
  const auth = { Authorization: `Bearer ${hook.secret}` };
  const wrong = await request.post(hook.url, { data: { a: 1 }, headers: { Authorization: 'Bearer bad', 'X-Service-Delivery-Id': 'evt-1' } });
  expect(wrong.status()).toBe(401);
  const first = await request.post(hook.url, { data: { a: 1 }, headers: { ...auth, 'X-Service-Delivery-Id': 'evt-1' } });
  const second = await request.post(hook.url, { data: { a: 2 }, headers: { ...auth, 'X-Service-Delivery-Id': 'evt-1' } });
  expect(first.status()).toBe(202);
  expect(second.status()).toBe(202);
  expect(await second.json()).toEqual(await first.json());
  // Without a sender ID, identical bodies are the same delivery.
  const a = await request.post(hook.url, { data: { same: 'body' }, headers: auth });
  const b = await request.post(hook.url, { data: { same: 'body' }, headers: auth });
  expect((await b.json()).delivery_id).toBe((await a.json()).delivery_id);

  const { deliveries } = await log(request, tokens.admin, hook.uid);
  expect(deliveries.map((d: { status: string }) => d.status)).toEqual(['duplicate', 'accepted', 'duplicate', 'accepted', 'rejected_auth']);
  const duplicate = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${deliveries[2].id}`, { headers: bearer(tokens.admin) })).json();
  expect(duplicate.delivery).not.toHaveProperty('payload');
});

test('50 identical requests at once: one Accepted, 49 Duplicate, all 202 with the same delivery_id', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'race' });
  const responses = await Promise.all(
    Array.from({ length: 50 }, () => request.post(hook.url, { data: { race: true }, headers: { Authorization: `Bearer ${hook.secret}`, 'X-Service-Delivery-Id': 'same-event' } })),
  );
  expect(responses.map((r) => r.status())).toEqual(Array(50).fill(202));
  const ids = new Set(await Promise.all(responses.map(async (r) => (await r.json()).delivery_id)));
  expect([...ids]).toEqual(['same-event']);
  const { deliveries } = await log(request, tokens.admin, hook.uid, '?limit=100');
  const counts = deliveries.reduce((acc: Record<string, number>, d: { status: string }) => ({ ...acc, [d.status]: (acc[d.status] ?? 0) + 1 }), {});
  expect(counts).toEqual({ accepted: 1, duplicate: 49 });
});

test('the delivery rate limit: the 61st delivery in a minute is 429 with an accurate Retry-After', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'rate' });
  const auth = { Authorization: `Bearer ${hook.secret}` };
  const started = Date.now();
  for (let i = 0; i < 60; i++) {
    const response = await request.post(hook.url, { data: { i }, headers: auth });
    expect(response.status()).toBe(202);
  }
  const limited = await request.post(hook.url, { data: { i: 60 }, headers: auth });
  expect(limited.status()).toBe(429);
  const retryAfter = Number(limited.headers()['retry-after']);
  const elapsed = Math.ceil((Date.now() - started) / 1000);
  expect(retryAfter).toBeGreaterThanOrEqual(60 - elapsed - 1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect((await limited.json()).error.code).toBe('rate_limited');
  // Other webhooks are not affected.
  const other = await createWebhook(request, tokens.admin, { name: 'rate-other' });
  expect((await request.post(other.url, { data: {}, headers: { Authorization: `Bearer ${other.secret}` } })).status()).toBe(202);
});

test('the failed-auth budget answers 429 on its own but never locks out valid credentials', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'brute' });
  const statuses = [];
  for (let i = 0; i < 21; i++) statuses.push((await request.post(hook.url, { data: { i }, headers: { Authorization: 'Bearer guess' } })).status());
  expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
  expect(statuses[20]).toBe(429);
  const limited = await request.post(hook.url, { data: {}, headers: { Authorization: 'Bearer guess' } });
  expect(Number(limited.headers()['retry-after'])).toBeGreaterThan(0);
  const legit = await request.post(hook.url, { data: { legit: true }, headers: { Authorization: `Bearer ${hook.secret}` } });
  expect(legit.status()).toBe(202);
  // Refused floods are not written to the log one by one: 20 rejections, 1
  // acceptance, and the minute's summary counting the 2 refusals.
  const { deliveries } = await log(request, tokens.admin, hook.uid, '?limit=100');
  expect(countBy(deliveries)).toEqual({ rejected_auth: 20, accepted: 1, refused: expect.any(Number) });
  expect(refusedTotal(deliveries)).toBe(2);
});

test('forged X-Forwarded-For values share their sender\'s failed-auth budget, and the log keeps the real address', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'forged' });
  const forged = (i: number) => `203.0.113.${i + 1}`;
  const statuses = [];
  for (let i = 0; i < 30; i++) {
    const response = await request.post(hook.url, { data: { i }, headers: { Authorization: 'Bearer guess', 'X-Forwarded-For': forged(i), 'X-Real-IP': forged(i) } });
    statuses.push(response.status());
    if (response.status() === 429) expect(Number(response.headers()['retry-after'])).toBeGreaterThan(0);
  }
  expect(statuses).toEqual([...Array(20).fill(401), ...Array(10).fill(429)]);
  // Valid credentials are never refused by the failed-auth budget, forged header or not.
  expect((await request.post(hook.url, { data: { ok: 1 }, headers: { Authorization: `Bearer ${hook.secret}`, 'X-Forwarded-For': '203.0.113.99' } })).status()).toBe(202);

  const { deliveries } = await log(request, tokens.admin, hook.uid, '?limit=100');
  expect(refusedTotal(deliveries)).toBe(10);
  const rejected = deliveries.filter((d: { status: string }) => d.status === 'rejected_auth');
  expect(rejected).toHaveLength(20);
  for (const entry of [rejected[0], rejected[19], deliveries[0]]) {
    const { delivery } = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${entry.id}`, { headers: bearer(tokens.admin) })).json();
    // The test client is on this machine: the socket's loopback address, never a forged value.
    expect(['127.0.0.1', '::1']).toContain(delivery.remoteAddress);
  }
});

test('unauthenticated log entries have a per-webhook budget: past 60 a minute, 429 and one summary that keeps counting', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'flood' });
  const other = await createWebhook(request, tokens.admin, { name: 'flood-other' });
  // Declared too large, without credentials: answered before any credential
  // check, so the per-address failed-auth budget plays no part.
  const tooLarge = () => rawPost(baseURL!, hook.url, { 'Content-Length': LIMIT + 1 }, (req) => req.write(Buffer.alloc(16, 0x20)));
  const statuses = [];
  for (let i = 0; i < 60; i++) statuses.push((await tooLarge()).status);
  expect(statuses).toEqual(Array(60).fill(413));
  const refused = await tooLarge();
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(JSON.parse(refused.body).error.code).toBe('rate_limited');
  // Failed authentication on the same webhook is refused too, now that its budget is spent.
  expect((await request.post(hook.url, { data: {}, headers: { Authorization: 'Bearer guess' } })).status()).toBe(429);

  let { deliveries } = await log(request, tokens.admin, hook.uid, '?limit=100');
  expect(deliveries.filter((d: { status: string }) => d.status === 'rejected_too_large')).toHaveLength(60);
  expect(refusedTotal(deliveries)).toBe(2);
  // A refusal after the summary was written updates its count.
  expect((await tooLarge()).status).toBe(429);
  ({ deliveries } = await log(request, tokens.admin, hook.uid, '?limit=100&status=refused'));
  expect(refusedTotal(deliveries)).toBe(3);
  expect(deliveries[0]).toMatchObject({ deliveryId: expect.stringMatching(/^refused:/), detail: expect.stringMatching(/^\d+ requests? without valid credentials refused with 429/) });
  const { delivery } = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${deliveries[0].id}`, { headers: bearer(tokens.admin) })).json();
  expect(delivery).toMatchObject({ status: 'refused', refusedCount: deliveries[0].refusedCount });
  expect(delivery).not.toHaveProperty('payload');

  // Valid deliveries are not under this budget, and other webhooks have their own.
  expect((await request.post(hook.url, { data: { valid: true }, headers: { Authorization: `Bearer ${hook.secret}` } })).status()).toBe(202);
  expect((await rawPost(baseURL!, other.url, { 'Content-Length': LIMIT + 1 }, (req) => req.write(Buffer.alloc(16, 0x20)))).status).toBe(413);
});

test('the log keeps the headers the sender sent, not the ones the server added on the way in', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'sent-headers' });
  const sent = { Authorization: `Bearer ${hook.secret}`, 'Content-Type': 'application/json', 'X-Forwarded-For': '203.0.113.9', 'X-Custom': 'kept' };
  expect((await rawPost(baseURL!, hook.url, sent, Buffer.from('{"a":1}'))).status).toBe(202);
  const { deliveries } = await log(request, tokens.admin, hook.uid);
  const { delivery } = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${deliveries[0].id}`, { headers: bearer(tokens.admin) })).json();
  // Exactly what went over the wire (Node's client adds Host and Connection), credentials redacted:
  // no request id, no rewritten X-Forwarded-For, no X-Forwarded-Host, -Port or -Proto.
  expect(delivery.headers).toEqual({
    host: new URL(baseURL!).host,
    connection: 'keep-alive',
    'content-length': '7',
    'content-type': 'application/json',
    authorization: '[redacted]',
    'x-forwarded-for': '203.0.113.9',
    'x-custom': 'kept',
  });
  // The address the log keys on is still the socket's, never the header.
  expect(['127.0.0.1', '::1']).toContain(delivery.remoteAddress);
});

test('the log: newest first, status filter, cursor pages, search, payload only for accepted, redacted headers', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'log' });
  const auth = { Authorization: `Bearer ${hook.secret}`, 'X-Custom': 'kept', Cookie: 'session=abc' };
  for (let i = 0; i < 7; i++) await request.post(hook.url, { data: { index: i, needle: i === 3 ? 'haystack-needle' : 'hay' }, headers: auth });
  await request.post(hook.url, { data: '{broken', headers: auth });

  const first = await log(request, tokens.admin, hook.uid, '?limit=3');
  expect(first.deliveries).toHaveLength(3);
  expect(first.deliveries[0].status).toBe('rejected_invalid_json');
  const second = await log(request, tokens.admin, hook.uid, `?limit=3&cursor=${first.nextCursor}`);
  const third = await log(request, tokens.admin, hook.uid, `?limit=3&cursor=${second.nextCursor}`);
  expect(third.nextCursor).toBeNull();
  const all = [...first.deliveries, ...second.deliveries, ...third.deliveries];
  expect(all).toHaveLength(8);
  expect(new Set(all.map((d: { id: string }) => d.id)).size).toBe(8);
  const times = all.map((d: { receivedAt: string }) => Date.parse(d.receivedAt));
  expect([...times].sort((x, y) => y - x)).toEqual(times);
  for (const key of ['id', 'deliveryId', 'status', 'size', 'receivedAt']) expect(all[0]).toHaveProperty(key);

  expect((await log(request, tokens.admin, hook.uid, '?status=accepted')).deliveries).toHaveLength(7);
  const found = await log(request, tokens.admin, hook.uid, '?q=haystack-needle');
  expect(found.deliveries).toHaveLength(1);
  const byId = await log(request, tokens.admin, hook.uid, `?q=${encodeURIComponent(found.deliveries[0].deliveryId)}`);
  expect(byId.deliveries[0].id).toBe(found.deliveries[0].id);

  const detail = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${found.deliveries[0].id}`, { headers: bearer(tokens.viewer) })).json();
  expect(detail.delivery.payload).toEqual({ index: 3, needle: 'haystack-needle' });
  expect(detail.delivery.headers['x-custom']).toBe('kept');
  expect(detail.delivery.headers['authorization']).toBe('[redacted]');
  expect(detail.delivery.headers['cookie']).toBe('[redacted]');
  expect(JSON.stringify(detail)).not.toContain(hook.secret!);

  const rejected = await (await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${first.deliveries[0].id}`, { headers: bearer(tokens.admin) })).json();
  expect(rejected.delivery).not.toHaveProperty('payload');
  expect(rejected.delivery).not.toHaveProperty('headers');

  expect((await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries?status=bogus`, { headers: bearer(tokens.admin) })).status()).toBe(422);
  expect((await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries?limit=500`, { headers: bearer(tokens.admin) })).status()).toBe(422);
  expect((await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries?cursor=garbage`, { headers: bearer(tokens.admin) })).status()).toBe(422);
  expect((await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries`, { headers: bearer(tokens.outsider) })).status()).toBe(404);
  expect((await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/dl_nope`, { headers: bearer(tokens.admin) })).status()).toBe(404);
});

