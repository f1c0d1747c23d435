import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { APIRequestContext, APIResponse } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, type Created } from '../fixtures/ingress';

// A webhook's custom response over real HTTP, on each API server: set with
// PATCH, read back with GET, and received by a real client (curl) for an
// accepted delivery and its duplicate; 204, XML and text; the answers that
// never change (401, 413); and the 422s that name the field.

const run = promisify(execFile);
const base = '/api/v1/factories/acme';

test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

const setResponse = (request: APIRequestContext, token: string, uid: string, customResponse: unknown) =>
  request.patch(`${base}/webhooks/${uid}`, { headers: bearer(token), data: { customResponse } });

/** POSTs a JSON body with curl, as a sender's HTTP client would, and splits its answer into status, headers and body. */
async function curl(url: string, hook: Created, body: string, headers: Record<string, string> = {}) {
  const args = ['--silent', '--show-error', '--include', '--max-time', String(budget(15_000) / 1000), '--request', 'POST', '--data-binary', body];
  for (const [name, value] of Object.entries({ 'Content-Type': 'application/json', Authorization: `Bearer ${hook.secret}`, ...headers })) {
    args.push('--header', `${name}: ${value}`);
  }
  const { stdout } = await run('curl', [...args, url], { encoding: 'utf8' });
  const split = stdout.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = stdout.slice(0, split).split('\r\n');
  return {
    status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine!)?.[1]),
    headers: Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()])),
    body: stdout.slice(split + 4),
  };
}

test('a real client gets the custom status, content type and body, with the delivery ID, for an accepted delivery and its duplicate', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'adyen', deliveryIdHeader: 'X-Event-Id' });
  const customResponse = { status: 200, contentType: 'application/json', body: '{"notificationResponse": "[accepted]", "id": "{{delivery_id}}"}' };
  const patched = await setResponse(request, tokens.admin, hook.uid, customResponse);
  expect(patched.status()).toBe(200);
  expect((await patched.json()).webhook.customResponse).toEqual(customResponse);
  const read = await request.get(`${base}/webhooks/${hook.uid}`, { headers: bearer(tokens.admin) });
  expect((await read.json()).webhook.customResponse).toEqual(customResponse);

  const eventId = `evt "${Date.now().toString(36)}" \\ 1`;
  const first = await curl(`${baseURL}${hook.url}`, hook, '{"live": "false"}', { 'X-Event-Id': eventId });
  expect(first.status).toBe(200);
  expect(first.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  // The ID is escaped inside the JSON string: the body parses, and holds it exactly.
  expect(JSON.parse(first.body)).toEqual({ notificationResponse: '[accepted]', id: eventId });
  expect(first.body).toBe(`{"notificationResponse": "[accepted]", "id": ${JSON.stringify(eventId)}}`);

  const again = await curl(`${baseURL}${hook.url}`, hook, '{"live": "false"}', { 'X-Event-Id': eventId });
  expect([again.status, again.headers['content-type'], again.body]).toEqual([200, 'application/json', first.body]);
  const log = await request.get(`${base}/webhooks/${hook.uid}/deliveries`, { headers: bearer(tokens.admin) });
  expect(((await log.json()).deliveries as { status: string; deliveryId: string }[]).map((entry) => [entry.status, entry.deliveryId])).toEqual([
    ['duplicate', eventId],
    ['accepted', eventId],
  ]);
});

test('204 has no body, XML escapes the ID, text is sent as written; null brings back 202', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'shapes', deliveryIdHeader: 'X-Event-Id' });
  const post = (id: string) => request.post(hook.url, { data: { n: id }, headers: { Authorization: `Bearer ${hook.secret}`, 'X-Event-Id': id } });
  const answer = async (response: APIResponse) => [response.status(), response.headers()['content-type'] ?? null, await response.text()];

  expect((await setResponse(request, tokens.admin, hook.uid, { status: 204 })).status()).toBe(200);
  const empty = await post('e-1');
  expect(await answer(empty)).toEqual([204, null, '']);
  expect(empty.headers()['cache-control']).toBe('no-store');

  await setResponse(request, tokens.admin, hook.uid, { status: 201, contentType: 'application/xml', body: '<?xml version="1.0"?>\n<ack id="{{delivery_id}}">ok</ack>' });
  expect(await answer(await post('a<b>&"c"'))).toEqual([201, 'application/xml', '<?xml version="1.0"?>\n<ack id="a&lt;b&gt;&amp;&quot;c&quot;">ok</ack>']);

  await setResponse(request, tokens.admin, hook.uid, { status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted] {{delivery_id}} ✓' });
  expect(await answer(await post('t-1'))).toEqual([200, 'text/plain; charset=utf-8', '[accepted] t-1 ✓']);

  const removed = await setResponse(request, tokens.admin, hook.uid, null);
  expect((await removed.json()).webhook.customResponse).toBeNull();
  expect(await answer(await post('d-1'))).toEqual([202, 'application/json', '{"delivery_id":"d-1"}']);
});

test('the 401 and 413 answers of a webhook with a custom response are Tripline’s own, unchanged', async ({ request, tokens, baseURL }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'errors-stay' });
  await setResponse(request, tokens.admin, hook.uid, { status: 200, contentType: 'text/plain; charset=utf-8', body: '[accepted]' });

  const unauthorized = await request.post(hook.url, { data: { n: 1 }, headers: { Authorization: 'Bearer not-the-secret' } });
  expect([unauthorized.status(), unauthorized.headers()['content-type'], await unauthorized.json()]).toEqual([
    401,
    'application/json',
    { error: { code: 'unauthorized', message: 'Authentication failed' } },
  ]);

  const tooLarge = await rawPost(baseURL!, hook.url, { Authorization: `Bearer ${hook.secret}` }, Buffer.alloc(262_145, 0x20));
  expect([tooLarge.status, tooLarge.headers['content-type'], JSON.parse(tooLarge.body)]).toEqual([
    413,
    'application/json',
    { error: { code: 'payload_too_large', message: 'The body is larger than 262,144 bytes (256 KiB)' } },
  ]);

  // And a valid delivery still gets the custom answer.
  const accepted = await request.post(hook.url, { data: { n: 2 }, headers: { Authorization: `Bearer ${hook.secret}` } });
  expect([accepted.status(), await accepted.text()]).toEqual([200, '[accepted]']);
});

test('bad custom responses get 422 with the field named, and change nothing', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'bad-response' });
  const fieldsOf = async (customResponse: unknown) => {
    const response = await setResponse(request, tokens.admin, hook.uid, customResponse);
    expect(response.status()).toBe(422);
    return (await response.json()).error.fields as Record<string, string>;
  };
  const text = 'text/plain; charset=utf-8';

  expect(await fieldsOf({ status: 500, contentType: text, body: 'x' })).toEqual({ 'customResponse.status': 'Choose 200, 201, 202 or 204' });
  expect(await fieldsOf({ status: 200, contentType: text, body: 'x'.repeat(2048) })).toEqual({
    'customResponse.body': 'Use at most 1,024 bytes (this body is 2,048 bytes of UTF-8)',
  });
  expect(await fieldsOf({ status: 204, body: '[accepted]' })).toEqual({ 'customResponse.body': expect.stringMatching(/204 response has no body/) });
  expect(await fieldsOf({ status: 200, contentType: 'text/html', body: 'x' })).toEqual({ 'customResponse.contentType': expect.stringMatching(/^Choose application\/json/) });
  expect(await fieldsOf({ status: 200, contentType: 'application/json', body: '{"id": {{delivery_id}}}' })).toEqual({
    'customResponse.body': expect.stringMatching(/^Enter valid JSON/),
  });
  expect(await fieldsOf({ status: 200, contentType: text, body: 'ok {{deliveryId}}' })).toEqual({
    'customResponse.body': 'Unknown placeholder {{deliveryId}}: the only placeholder is {{delivery_id}}',
  });

  const unchanged = await request.get(`${base}/webhooks/${hook.uid}`, { headers: bearer(tokens.admin) });
  expect((await unchanged.json()).webhook.customResponse).toBeNull();
  // Only admins change it: an editor and a viewer read the webhook but get 403.
  expect((await setResponse(request, tokens.editor, hook.uid, { status: 204 })).status()).toBe(403);
  expect((await setResponse(request, tokens.viewer, hook.uid, { status: 204 })).status()).toBe(403);
});
