import { createHash, createHmac } from 'node:crypto';
import type { APIRequestContext, APIResponse } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { handshakeOfVector, loadVectors, schemeOf, type Vector } from '../../lib/ingress/signatures/fixtures/vectors';
import { metaVerifyToken } from '../../lib/ingress/signatures/meta';
import { getScheme, schemeIds, type SchemeId } from '../../lib/ingress/signatures/registry';

// Every vector of lib/ingress/signatures/fixtures/signatures.json through the real
// ingress over HTTP, on embedded PGlite and on PostgreSQL, evaluated at the
// vector's own `now` (X-Tripline-Test-Now; the servers run with
// TRIPLINE_TEST_CLOCK=true). Valid vectors are accepted with the provider's
// delivery ID, invalid ones are 401, handshakes get exactly the answer their
// provider requires. The run ends by printing how many schemes passed.

const vectors = loadVectors();

test.describe.configure({ mode: 'serial' });
test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

const log = async (request: APIRequestContext, admin: string, uid: string) =>
  (await (await request.get(`/api/v1/factories/acme/webhooks/${uid}/deliveries`, { headers: bearer(admin) })).json()).deliveries as {
    status: string;
    deliveryId: string;
    detail: string | null;
  }[];

function isJson(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** `200 application/json {...}` / `200 text/plain body exactly: x` from a vector's expected_response. */
async function expectResponse(response: APIResponse, vector: Vector): Promise<void> {
  const expected = vector.expected_response ?? '';
  expect(response.status(), expected).toBe(200);
  const body = await response.text();
  if (expected.includes('application/json')) {
    expect(response.headers()['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(body)).toEqual(JSON.parse(expected.slice(expected.indexOf('{'))));
  } else {
    expect(response.headers()['content-type']).toMatch(/^text\/plain/);
    expect(body).toBe(expected.replace(/^.*body(?: exactly)?: /, ''));
  }
}

/** The header of a vector that carries the provider's delivery ID, matched case-insensitively. */
function sentDeliveryId(scheme: SchemeId, vector: Vector): string | undefined {
  const info = getScheme(scheme);
  const names = [info?.deliveryIdHeader ?? null, ...(info?.deliveryIdFallbackHeaders ?? [])].filter((name) => name !== null).map((name) => name.toLowerCase());
  for (const name of names) {
    const found = Object.entries(vector.headers).find(([key]) => key.toLowerCase() === name);
    if (found) return found[1];
  }
  return undefined;
}

/**
 * Square and Twilio sign the URL they post to. A vector's URL is the
 * provider's example host, not ours: posted as published, its signature must
 * fail here (the "notification URL differs" case), and re-signed with the
 * vector's own secret and body for our ingress URL, it must pass.
 */
function resignForUrl(scheme: SchemeId, vector: Vector, ingressUrl: string): { url: string; headers: Record<string, string> } {
  const secret = vector.secret ?? '';
  if (scheme === 'square') {
    const signature = createHmac('sha256', secret).update(ingressUrl + vector.body).digest('base64');
    return { url: ingressUrl, headers: { 'x-square-hmacsha256-signature': signature } };
  }
  if (vector.scheme === 'twilio-json') {
    const url = `${ingressUrl}?bodySHA256=${createHash('sha256').update(vector.body).digest('hex')}`;
    return { url, headers: { 'Content-Type': 'application/json', 'X-Twilio-Signature': createHmac('sha1', secret).update(url).digest('base64') } };
  }
  const params = new URLSearchParams(vector.body);
  let payload = ingressUrl;
  for (const name of [...new Set(params.keys())].sort()) for (const value of [...new Set(params.getAll(name))].sort()) payload += name + value;
  return { url: ingressUrl, headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': createHmac('sha1', secret).update(payload).digest('base64') } };
}

const clock = (vector: Vector): Record<string, string> => (vector.now === null ? {} : { 'X-Tripline-Test-Now': String(vector.now) });

test('every vector passes through the ingress as its provider requires', async ({ request, tokens }, testInfo) => {
  test.setTimeout(budget(180_000));
  const passedBy = new Map<SchemeId, number>();
  const totalBy = new Map<SchemeId, number>();
  const notes: string[] = [];

  for (const [index, vector] of vectors.entries()) {
    const scheme = schemeOf(vector) ?? handshakeOfVector[vector.scheme];
    expect(scheme, `vector ${index} (${vector.scheme}) belongs to no scheme`).toBeDefined();
    if (!scheme) continue;
    const name = `vector ${index} (${vector.scheme}, ${vector.expected}${vector.reason ? `: ${vector.reason}` : ''})`;
    totalBy.set(scheme, (totalBy.get(scheme) ?? 0) + 1);

    // Unsigned handshakes come before the secret exists: Asana's carries it.
    const awaitsHandshake = vector.scheme === 'asana-handshake';
    const hook = await createWebhook(request, tokens.admin, {
      name: `vector-${index}`,
      authMode: 'signature',
      signatureScheme: scheme,
      providerSecret: awaitsHandshake ? undefined : (vector.secret ?? vectors.find((v) => schemeOf(v) === scheme)?.secret ?? undefined),
    });
    const ingressUrl = new URL(hook.url, testInfo.project.use.baseURL).toString();
    const body = Buffer.from(vector.body, 'utf8');

    if (vector.method) {
      // A challenge (Dropbox, Okta, Meta, X: GET; Graph's validation: POST) at the vector's query; Meta's verify token is this webhook's.
      const query = new URL(vector.url ?? '', 'http://x').search.replace('{verify_token}', () => metaVerifyToken(vector.secret ?? '', hook.uid));
      const response = await request.fetch(`${hook.url}${query}`, { method: vector.method, headers: vector.headers, data: vector.body || undefined });
      await expectResponse(response, vector);
      expect(response.headers()['x-content-type-options']).toBe('nosniff');
      expect(response.headers()['cache-control']).toBe('no-store');
    } else if (awaitsHandshake) {
      const response = await request.post(hook.url, { headers: vector.headers, data: body });
      expect(response.status(), name).toBe(200);
      expect(response.headers()['x-hook-secret']).toBe(vector.headers['X-Hook-Secret']);
      // The secret is now the provider secret: Asana's signed event (vector 49 uses the same secret) is accepted.
      const event = vectors.find((v) => v.scheme === 'asana')!;
      expect((await request.post(hook.url, { headers: event.headers, data: Buffer.from(event.body) })).status()).toBe(202);
    } else if (getScheme(scheme)?.signsUrl) {
      const published = await request.post(hook.url, { headers: { ...vector.headers, ...clock(vector) }, data: body });
      expect(published.status(), `${name} posted for ${vector.url}`).toBe(401);
      if (vector.expected === 'valid') {
        const resigned = resignForUrl(scheme, vector, ingressUrl);
        const response = await request.post(resigned.url, { headers: { ...resigned.headers, ...clock(vector) }, data: body });
        // Twilio's Voice and Messaging webhooks are forms: the signature passes, the JSON-only ingress answers 400.
        expect(response.status(), `${name} re-signed for ${resigned.url}`).toBe(isJson(vector.body) ? 202 : 400);
        if (!isJson(vector.body)) notes.push(`vector ${index} (${vector.scheme}): form body verified, then refused as not JSON (400)`);
      }
    } else {
      const response = await request.post(hook.url, { headers: { ...vector.headers, ...clock(vector) }, data: body });
      // HTTP trims header whitespace: GitLab's trailing-space token cannot reach a server as published.
      const trimmed = Object.values(vector.headers).some((value) => value !== value.trim());
      if (trimmed) {
        notes.push(`vector ${index} (${vector.scheme}): not representable over HTTP (header whitespace is trimmed)`);
      } else if (vector.expected === 'invalid') {
        expect(response.status(), name).toBe(401);
      } else if (vector.expected_response) {
        await expectResponse(response, vector);
      } else if (!isJson(vector.body)) {
        // GitHub's documented example signs a plain-text body: the signature passes, the JSON-only ingress answers 400.
        expect(response.status(), name).toBe(400);
        notes.push(`vector ${index} (${vector.scheme}): signature verified, body not JSON (400)`);
      } else {
        expect(response.status(), name).toBe(202);
        const sent = sentDeliveryId(scheme, vector);
        if (sent) expect((await response.json()).delivery_id, `${name} delivery ID`).toBe(sent);
      }
    }

    const [entry] = await log(request, tokens.admin, hook.uid);
    if (vector.expected_response?.startsWith('200') || vector.scheme === 'asana-handshake') {
      // Asana's handshake is followed by its event, so the handshake is the second newest entry.
      const entries = await log(request, tokens.admin, hook.uid);
      expect(entries.some((e) => e.status === 'handshake'), `${name} logged as a handshake`).toBe(true);
    } else if (vector.expected === 'invalid' && Object.values(vector.headers).every((value) => value === value.trim())) {
      expect(entry?.status, name).toBe('rejected_auth');
    }
    passedBy.set(scheme, (passedBy.get(scheme) ?? 0) + 1);
    await deleteCreatedWebhooks(request, tokens.admin);
  }

  const passing = schemeIds.filter((id) => (totalBy.get(id) ?? 0) > 0 && passedBy.get(id) === totalBy.get(id));
  const untested = schemeIds.filter((id) => !totalBy.has(id));
  console.log(
    `[${testInfo.project.name}] provider vectors over HTTP: ${passing.length} of ${schemeIds.length} schemes with passing vectors ` +
      `(${vectors.length} vectors)${untested.length ? `; no vector: ${untested.join(', ')}` : ''}\n  ${notes.join('\n  ')}`,
  );
  expect(passing.length).toBe(schemeIds.length);
});

test('Notion: the unsigned verification token becomes the secret, once; signed events then pass', async ({ request, tokens }) => {
  const event = vectors.find((v) => v.scheme === 'notion')!;
  const hook = await createWebhook(request, tokens.admin, { name: 'notion', authMode: 'signature', signatureScheme: 'notion' });
  // Before the token: an event cannot verify.
  expect((await request.post(hook.url, { headers: event.headers, data: Buffer.from(event.body) })).status()).toBe(401);
  const verification = await request.post(hook.url, { data: { verification_token: event.secret } });
  expect(verification.status()).toBe(200);
  expect((await request.post(hook.url, { headers: event.headers, data: Buffer.from(event.body) })).status()).toBe(202);
  // A second "verification" cannot replace the secret: it is an unsigned request, 401.
  expect((await request.post(hook.url, { data: { verification_token: 'secret_attacker' } })).status()).toBe(401);
  const statuses = (await log(request, tokens.admin, hook.uid)).map((entry) => entry.status);
  expect(statuses).toEqual(['rejected_auth', 'accepted', 'handshake', 'rejected_auth']);
  // The log can be filtered to handshakes.
  const handshakes = await request.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries?status=handshake`, { headers: bearer(tokens.admin) });
  expect((await handshakes.json()).deliveries.map((entry: { status: string }) => entry.status)).toEqual(['handshake']);
});

test('handshakes are answered only when genuine: a mis-signed Slack or Zoom challenge is 401', async ({ request, tokens }) => {
  const zoom = vectors.find((v) => v.scheme === 'zoom-url-validation')!;
  const hook = await createWebhook(request, tokens.admin, { name: 'zoom', authMode: 'signature', signatureScheme: 'zoom', providerSecret: zoom.secret });
  const forged = { ...zoom.headers, 'x-zm-signature': `v0=${'0'.repeat(64)}` };
  expect((await request.post(hook.url, { headers: forged, data: Buffer.from(zoom.body) })).status()).toBe(401);

  const slack = await createWebhook(request, tokens.admin, { name: 'slack', authMode: 'signature', signatureScheme: 'slack', providerSecret: 'slack-signing-secret' });
  const body = JSON.stringify({ token: 'x', challenge: 'c-123', type: 'url_verification' });
  const now = Math.floor(Date.now() / 1000);
  const signature = `v0=${createHmac('sha256', 'slack-signing-secret').update(`v0:${now}:${body}`).digest('hex')}`;
  const answered = await request.post(slack.url, { headers: { 'X-Slack-Request-Timestamp': String(now), 'X-Slack-Signature': signature }, data: body });
  expect(answered.status()).toBe(200);
  expect(answered.headers()['content-type']).toMatch(/^text\/plain/);
  expect(await answered.text()).toBe('c-123');
  const unsigned = await request.post(slack.url, { data: body });
  expect(unsigned.status()).toBe(401);
  expect((await log(request, tokens.admin, slack.uid)).map((entry) => entry.status)).toEqual(['rejected_auth', 'handshake']);
});
