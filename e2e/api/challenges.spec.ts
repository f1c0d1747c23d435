import { createHmac } from 'node:crypto';
import type { APIRequestContext, APIResponse } from '@playwright/test';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, hmacHex } from '../fixtures/ingress';
import { rememberSecrets } from '../fixtures/secrets';
import { metaVerifyToken } from '../../lib/ingress/signatures/meta';

// The verification challenges of Microsoft Graph, Okta, Meta and X over real
// HTTP, on PGlite and PostgreSQL: each right answer; a wrong token is a
// failed authentication (401, logged, and 429 past the budget); hostile
// values are refused or escaped; X's body-shaped tokens get no answer; a
// challenge sent to a webhook of another scheme is not answered; the log
// shows Handshake entries that never hold the token.

test.describe.configure({ mode: 'serial' });
test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

type Entry = { id: string; status: string; detail: string | null; eventType: string | null };
const log = async (request: APIRequestContext, admin: string, uid: string): Promise<Entry[]> =>
  (await (await request.get(`/api/v1/factories/acme/webhooks/${uid}/deliveries?limit=100`, { headers: bearer(admin) })).json()).deliveries;

/** The answer's safety headers, as every handshake has them. */
function expectSafeHeaders(response: APIResponse): void {
  expect(response.headers()['x-content-type-options']).toBe('nosniff');
  expect(response.headers()['cache-control']).toBe('no-store');
}

/** A 401 with the ingress's usual error body, which echoes nothing the sender sent. */
async function expectUnauthorized(response: APIResponse, sent: string): Promise<void> {
  expect(response.status()).toBe(401);
  const text = await response.text();
  expect(JSON.parse(text)).toEqual({ error: { code: 'unauthorized', message: 'Authentication failed' } });
  expect(text).not.toContain(sent);
}

/** No entry of the log holds any of these values (the log shows metadata only). */
async function expectLogWithout(request: APIRequestContext, admin: string, uid: string, values: string[]): Promise<Entry[]> {
  const entries = await log(request, admin, uid);
  const text = JSON.stringify(entries);
  for (const value of values) expect(text).not.toContain(value);
  return entries;
}

const statuses = (entries: Entry[]) => entries.map((entry) => entry.status).reverse();

test('Microsoft Graph: the validation token is echoed URL-decoded, hostile ones escaped or refused; clientState authenticates notifications', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'graph', authMode: 'signature', signatureScheme: 'microsoft-graph' });
  const clientState = hook.secret!;
  expect(clientState.length).toBeLessThanOrEqual(128);
  const token = 'Validation: Testing client application reachability for subscription Request-Id: 0f3e4b5a-8c1d-4e2f-9a6b-7c8d9e0f1a2b';
  const validate = (value: string) =>
    request.post(`${hook.url}?validationToken=${encodeURIComponent(value)}`, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });

  const answered = await validate(token);
  expect(answered.status()).toBe(200);
  expect(answered.headers()['content-type']).toMatch(/^text\/plain/);
  expectSafeHeaders(answered);
  expect(await answered.text()).toBe(token);
  // '+' in a query is a space, as Graph's own clients decode it.
  expect(await (await request.post(`${hook.url}?validationToken=a+b%2Bc`)).text()).toBe('a b+c');

  const html = await validate('<script>alert(1)</script>&"\'');
  expect(html.status()).toBe(200);
  expect(await html.text()).toBe('&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;');
  await expectUnauthorized(await validate('line\nbreak'), 'line');
  await expectUnauthorized(await validate('x'.repeat(10 * 1024)), 'xxxx');

  const notification = (state: string) => ({ value: [{ subscriptionId: 's-1', clientState: state, changeType: 'created', resource: 'users/u/messages/m' }] });
  const accepted = await request.post(hook.url, { data: notification(clientState) });
  expect(accepted.status()).toBe(202);
  const lifecycle = await request.post(hook.url, { data: { value: [{ subscriptionId: 's-1', clientState, lifecycleEvent: 'reauthorizationRequired' }] } });
  expect(lifecycle.status()).toBe(202);
  await expectUnauthorized(await request.post(hook.url, { data: notification('guess') }), 'guess');

  const entries = await expectLogWithout(request, tokens.admin, hook.uid, [token, 'script', 'Request-Id']);
  expect(statuses(entries)).toEqual(['handshake', 'handshake', 'handshake', 'rejected_auth', 'rejected_auth', 'accepted', 'accepted', 'rejected_auth']);
  expect(entries.filter((entry) => entry.status === 'accepted').map((entry) => entry.eventType)).toEqual(['reauthorizationRequired', 'created']);
  expect(entries.at(-1)?.detail).toBe('Microsoft Graph validation answered');
  // The clientState is the webhook's secret: the log stores it redacted, as it does credential headers, so no viewer reads it.
  for (const entry of entries.filter((e) => e.status === 'accepted')) {
    const response = await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries/${entry.id}`, { headers: bearer(tokens.viewer) });
    const text = await response.text();
    expect(text).not.toContain(clientState);
    expect(JSON.parse(text).delivery.payload.value[0]).toMatchObject({ clientState: '[redacted]', subscriptionId: 's-1' });
  }
});

test('Okta: the verification GET is answered only with the secret in Authorization', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'okta', authMode: 'signature', signatureScheme: 'okta' });
  const secret = hook.secret!;
  const challenge = 'Me_rShK8JHsTnbyYrWXCEoMGbM_zsZ6k0hLPZ_Pg';
  const verify = (headers: Record<string, string>) => request.get(hook.url, { headers: { 'X-Okta-Verification-Challenge': challenge, ...headers } });

  const answered = await verify({ Authorization: secret });
  expect(answered.status()).toBe(200);
  expect(answered.headers()['content-type']).toMatch(/^application\/json/);
  expectSafeHeaders(answered);
  expect(await answered.json()).toEqual({ verification: challenge });

  await expectUnauthorized(await verify({}), challenge);
  await expectUnauthorized(await verify({ Authorization: 'guess' }), challenge);
  await expectUnauthorized(await verify({ Authorization: `Bearer ${secret}` }), challenge);
  const hostile = await request.get(hook.url, { headers: { 'X-Okta-Verification-Challenge': '<img src=x onerror=alert(1)>', Authorization: secret } });
  await expectUnauthorized(hostile, 'onerror');

  const event = { eventType: 'com.okta.event_hook', data: { events: [{ eventType: 'user.session.start' }] } };
  expect((await request.post(hook.url, { headers: { Authorization: secret }, data: event })).status()).toBe(202);
  await expectUnauthorized(await request.post(hook.url, { headers: { Authorization: 'guess' }, data: event }), 'guess');

  const entries = await expectLogWithout(request, tokens.admin, hook.uid, [challenge, secret]);
  expect(statuses(entries)).toEqual(['handshake', 'rejected_auth', 'rejected_auth', 'rejected_auth', 'rejected_auth', 'accepted', 'rejected_auth']);
  expect(entries.find((entry) => entry.status === 'accepted')?.eventType).toBe('user.session.start');
});

test('Meta: the challenge is echoed for the webhook’s verify token only; a wrong token is a failed authentication, then 429', async ({ request, tokens }) => {
  const appSecret = 'meta-app-secret-e2e';
  const hook = await createWebhook(request, tokens.admin, { name: 'meta', authMode: 'signature', signatureScheme: 'meta', providerSecret: appSecret });
  const verifyToken = metaVerifyToken(appSecret, hook.uid);
  // e2e/logs proves no server log holds them.
  rememberSecrets(appSecret, verifyToken);
  const verify = (token: string, challenge = '1158201444') =>
    request.get(`${hook.url}?hub.mode=subscribe&hub.challenge=${encodeURIComponent(challenge)}&hub.verify_token=${encodeURIComponent(token)}`);

  const answered = await verify(verifyToken);
  expect(answered.status()).toBe(200);
  expect(answered.headers()['content-type']).toMatch(/^text\/plain/);
  expectSafeHeaders(answered);
  expect(await answered.text()).toBe('1158201444');

  await expectUnauthorized(await verify('meatyhamhock'), '1158201444');
  // Another webhook's verify token (same app secret) is wrong here too.
  await expectUnauthorized(await verify(metaVerifyToken(appSecret, 'wh_another')), '1158201444');
  await expectUnauthorized(await verify(verifyToken, '<script>alert(1)</script>'), 'script');
  await expectUnauthorized(await verify(verifyToken, 'x'.repeat(10 * 1024)), 'xxxx');
  await expectUnauthorized(await verify(verifyToken, 'a\u0000b'), '\u0000');

  const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value: {} }] }] });
  expect((await request.post(hook.url, { headers: { 'X-Hub-Signature-256': `sha256=${hmacHex(appSecret, body)}` }, data: body })).status()).toBe(202);

  const entries = await expectLogWithout(request, tokens.admin, hook.uid, [verifyToken, '1158201444', 'meatyhamhock']);
  expect(statuses(entries)).toEqual(['handshake', 'rejected_auth', 'rejected_auth', 'rejected_auth', 'rejected_auth', 'rejected_auth', 'accepted']);
  expect(entries.find((entry) => entry.status === 'accepted')?.eventType).toBe('whatsapp_business_account.messages');
  expect(entries.filter((entry) => entry.status === 'rejected_auth').map((entry) => entry.detail)).toContain('Meta verification with a wrong hub.verify_token');

  // The failed-authentication budget (20 a minute per webhook and address) turns guessing into 429.
  const guessed = await createWebhook(request, tokens.admin, { name: 'meta-guess', authMode: 'signature', signatureScheme: 'meta', providerSecret: appSecret });
  const guesses: number[] = [];
  for (let i = 0; i < 21; i++) guesses.push((await request.get(`${guessed.url}?hub.mode=subscribe&hub.challenge=1&hub.verify_token=guess-${i}`)).status());
  expect(guesses).toEqual([...Array(20).fill(401), 429]);
  // The budget counts failures only: Meta itself, with the right token, is still answered.
  const genuine = await request.get(`${guessed.url}?hub.mode=subscribe&hub.challenge=1&hub.verify_token=${metaVerifyToken(appSecret, guessed.uid)}`);
  expect(genuine.status()).toBe(200);
});

test('X: the CRC is answered with the HMAC of its token, never for a token that is a JSON body', async ({ request, tokens }) => {
  const consumerSecret = 'x-consumer-secret-e2e';
  rememberSecrets(consumerSecret);
  const hook = await createWebhook(request, tokens.admin, { name: 'x', authMode: 'signature', signatureScheme: 'x', providerSecret: consumerSecret });
  const crc = (token: string) => request.get(`${hook.url}?crc_token=${encodeURIComponent(token)}`);
  const expected = (token: string) => `sha256=${createHmac('sha256', consumerSecret).update(token).digest('base64')}`;

  const token = '9b4507b3-9040-4669-9ca3-6b94edb50553';
  const answered = await crc(token);
  expect(answered.status()).toBe(200);
  expect(answered.headers()['content-type']).toMatch(/^application\/json/);
  expectSafeHeaders(answered);
  expect(await answered.json()).toEqual({ response_token: expected(token) });

  // Each of these, answered, would be the signature of a delivery whose body is the token.
  for (const body of ['{"a":1}', '123', 'true', 'null', '"a"', '[1]']) {
    const response = await crc(body);
    await expectUnauthorized(response, expected(body));
    // The proof: that signature is accepted as a delivery, so it must never be handed out.
    expect((await request.post(hook.url, { headers: { 'X-Twitter-Webhooks-Signature': expected(body), 'Content-Type': 'application/json' }, data: body })).status()).toBe(202);
  }
  await expectUnauthorized(await crc('<script>'), 'script');
  await expectUnauthorized(await crc('x'.repeat(10 * 1024)), 'xxxx');

  // A token with a dot is not one of X's: its answer would be, in hex, a Stripe-style signature of the body after the dot.
  await expectUnauthorized(await crc('9999999999.true'), expected('9999999999.true'));

  const entries = await expectLogWithout(request, tokens.admin, hook.uid, [token, expected(token)]);
  expect(entries.filter((entry) => entry.status === 'handshake')).toHaveLength(1);
  expect(entries.filter((entry) => entry.status === 'rejected_auth')).toHaveLength(9);
  expect(entries.filter((entry) => entry.status === 'accepted')).toHaveLength(6);

  // X checks the CRC about hourly, and a webhook that fails it stops getting deliveries: once the webhook's
  // 60 unauthenticated entries of the minute are spent (by anyone), a CRC is still answered, without an entry.
  for (let i = 0; i < 60; i++) {
    const again = await crc(`${token}-${i}`);
    expect(again.status()).toBe(200);
    expect(await again.json()).toEqual({ response_token: expected(`${token}-${i}`) });
  }
  const after = await log(request, tokens.admin, hook.uid);
  // At most the budget (61 should the minute turn over within the loop).
  expect(after.filter((entry) => entry.status === 'handshake').length).toBeLessThanOrEqual(61);
  expect(after.filter((entry) => entry.status === 'refused')).toEqual([]);
});

test('a challenge is answered only by a webhook of its scheme', async ({ request, tokens }) => {
  const github = await createWebhook(request, tokens.admin, { name: 'github', authMode: 'signature', signatureScheme: 'github' });
  const get = (query: string, headers: Record<string, string> = {}) => request.get(`${github.url}?${query}`, { headers });
  for (const response of [
    await get('hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=anything'),
    await get('crc_token=9b4507b3-9040-4669-9ca3-6b94edb50553'),
    await get('', { 'X-Okta-Verification-Challenge': 'challenge', Authorization: 'anything' }),
    await get('challenge=HkJw7rRTs8'),
  ]) {
    expect(response.status()).toBe(405);
    expect(response.headers().allow).toBe('POST');
  }
  // Graph's validation POST to a GitHub webhook is an unsigned delivery: 401, no echo.
  await expectUnauthorized(await request.post(`${github.url}?validationToken=token-123`), 'token-123');

  // Nor does one provider's challenge pass for another's: a Meta GET on an X webhook, X's CRC on a Meta webhook.
  const x = await createWebhook(request, tokens.admin, { name: 'x-other', authMode: 'signature', signatureScheme: 'x', providerSecret: 'x-secret' });
  expect((await request.get(`${x.url}?hub.mode=subscribe&hub.challenge=1&hub.verify_token=t`)).status()).toBe(405);
  const meta = await createWebhook(request, tokens.admin, { name: 'meta-other', authMode: 'signature', signatureScheme: 'meta', providerSecret: 'm-secret' });
  expect((await request.get(`${meta.url}?crc_token=abc`)).status()).toBe(405);
  expect(statuses(await log(request, tokens.admin, github.uid))).toEqual(['rejected_auth']);
  expect(await log(request, tokens.admin, x.uid)).toEqual([]);
});

test('a Meta webhook waiting for its app secret answers no challenge', async ({ request, tokens }) => {
  const hook = await createWebhook(request, tokens.admin, { name: 'meta-waiting', authMode: 'signature', signatureScheme: 'meta' });
  await expectUnauthorized(await request.get(`${hook.url}?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=anything`), '1158201444');
  const [entry] = await log(request, tokens.admin, hook.uid);
  expect(entry).toMatchObject({ status: 'rejected_auth', detail: 'the webhook is waiting for its provider secret' });
});
