import http from 'node:http';
import fc from 'fast-check';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, signedHeaders, type Created } from '../fixtures/ingress';

// The ingress under random requests, over real HTTP, on embedded PGlite and
// on PostgreSQL: for every auth mode (bearer token, URL token, and signature
// schemes: Standard Webhooks, GitHub, Stripe, Slack, Shopify), fast-check
// generates methods, paths (percent-encoding garbage included), headers,
// bodies (JSON, random bytes, deep nesting, sizes around the limit) and
// credentials (valid, tampered, random, missing). No answer may be a 5xx or
// outside the ingress's documented statuses; afterwards every webhook still
// accepts a valid delivery and the server is healthy.
//
// FUZZ_RUNS sets the requests per mode (default 200); FUZZ_SEED replays a run.

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const LIMIT = 256 * 1024;
// Requests with valid credentials count against the delivery rate (60 a
// minute): the fuzzer sends at most this many per webhook, so the final
// check is not refused by the rate limit.
const VALID_PER_WEBHOOK = 40;
// 200: verification handshakes; 308: Next.js's redirect of a non-canonical
// path (a trailing slash, a "." segment) to the same URL without it.
const DOCUMENTED = [200, 202, 308, 400, 401, 404, 405, 413, 429];

type Mode = { name: string; data: Record<string, unknown>; scheme?: string };
const modes: Mode[] = [
  { name: 'token', data: {} },
  { name: 'url_token', data: { authMode: 'url_token' } },
  { name: 'standard-webhooks', data: { authMode: 'signature', signatureScheme: 'standard-webhooks' }, scheme: 'standard-webhooks' },
  { name: 'github', data: { authMode: 'signature', signatureScheme: 'github', providerSecret: 'fuzz-github-secret' }, scheme: 'github' },
  { name: 'stripe', data: { authMode: 'signature', signatureScheme: 'stripe', providerSecret: 'whsec_fuzz_stripe' }, scheme: 'stripe' },
  { name: 'slack', data: { authMode: 'signature', signatureScheme: 'slack', providerSecret: 'fuzz-slack-secret' }, scheme: 'slack' },
  { name: 'shopify', data: { authMode: 'signature', signatureScheme: 'shopify', providerSecret: 'fuzz-shopify-secret' }, scheme: 'shopify' },
];

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

type Sent = { status: number; body: string };

// Every body is framed by a Content-Length. Node sends a GET, DELETE or
// OPTIONS body without one (no chunked encoding for those methods), so its
// bytes would reach the server as the start of the connection's next request:
// the server rightly answers that one 400 and closes, and a later request
// reusing the kept-alive socket read the stale answer (seen once in CI).
function send(baseURL: string, method: string, path: string, headers: Record<string, string>, body: Buffer | null, options: { fresh?: boolean } = {}): Promise<Sent> {
  const payload = method === 'HEAD' ? null : body;
  const framed = payload === null ? headers : { ...headers, 'content-length': String(payload.length) };
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(baseURL), { agent: options.fresh ? false : agent, method, path, headers: framed, timeout: budget(20_000) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${budget(20_000)} ms`)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A refused upload may be cut after the answer; only a missing answer fails.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') resolve({ status: -1, body: error.code });
      else reject(error);
    });
    req.end(payload ?? undefined);
  });
}

// Header values Node will send: printable ASCII (and tab).
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 120 });
const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,24}$/).filter((name) => !['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade', 'te', 'trailer'].includes(name));
const knownHeaders = [
  'authorization',
  'content-type',
  'x-service-delivery-id',
  'x-forwarded-for',
  'x-real-ip',
  'x-tripline-test-now',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'svix-id',
  'svix-signature',
  'x-hub-signature-256',
  'x-github-delivery',
  'stripe-signature',
  'x-slack-signature',
  'x-slack-request-timestamp',
  'x-shopify-hmac-sha256',
  'x-shopify-webhook-id',
];
const randomHeaders = fc.dictionary(fc.oneof(fc.constantFrom(...knownHeaders), headerName), headerText, { maxKeys: 6 });

const body = fc.oneof(
  { weight: 4, arbitrary: fc.json({ maxDepth: 4 }).map((text) => Buffer.from(text)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }).map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 60_000 }).map((depth) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`)) },
  { weight: 1, arbitrary: fc.constantFrom(LIMIT - 1, LIMIT, LIMIT + 1, LIMIT * 2).map((size) => Buffer.alloc(size, 0x20).fill('"', 0, 1).fill('"', 2, 3)) },
  { weight: 1, arbitrary: headerText.map((challenge) => Buffer.from(JSON.stringify({ type: 'url_verification', challenge, token: 'x' }))) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
);

const method = fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, { weight: 2, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') });
const garbageSegment = fc.oneof(fc.constantFrom('%ZZ', '%', '%E0%A4%A', '%00', '..', '.', '%2e%2e', '%2F', 'wh_', ''), fc.webSegment());
const query = fc.option(fc.webQueryParameters(), { nil: undefined });
const credential = fc.constantFrom('valid', 'valid', 'tampered', 'random', 'missing');
const timestampShift = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -4000, max: 4000 }) });

const request = fc.record({
  method,
  pathKind: fc.constantFrom('exact', 'exact', 'exact', 'extra-segment', 'other-uid', 'no-token'),
  segment: garbageSegment,
  query,
  credential,
  shift: timestampShift,
  headers: randomHeaders,
  body,
});

function pathFor(hook: Created, input: { pathKind: string; segment: string; query?: string }): string {
  const base = (() => {
    switch (input.pathKind) {
      case 'extra-segment':
        return `${hook.url}/${input.segment}`;
      case 'other-uid':
        return `/webhooks/w/${input.segment}`;
      case 'no-token':
        return `/webhooks/w/${hook.uid}`;
      default:
        return hook.url;
    }
  })();
  return input.query ? `${base}?${input.query}` : base;
}

function credentialHeaders(mode: Mode, hook: Created, secret: string, choice: string, payload: string, shift: number): Record<string, string> {
  if (choice === 'missing') return {};
  if (!mode.scheme) {
    if (mode.name === 'url_token') return {};
    const token = choice === 'valid' ? secret : choice === 'tampered' ? `${secret}x` : 'guess';
    return { authorization: `Bearer ${token}` };
  }
  const signed = signedHeaders(mode.scheme, secret, payload, Math.floor(Date.now() / 1000) + shift);
  if (choice === 'random') return Object.fromEntries(Object.keys(signed).map((name) => [name, 'v1,AAAA']));
  return signed;
}

test.describe.configure({ mode: 'serial' });
test.afterEach(({ request: api, tokens }) => deleteCreatedWebhooks(api, tokens.admin));

test('random requests in every auth mode: never a 5xx, and valid deliveries are still accepted afterwards', async ({ request: api, tokens, baseURL }) => {
  test.setTimeout(budget(180_000));
  const statuses: Record<string, Record<number, number>> = {};
  for (const mode of modes) {
    const hook = await createWebhook(api, tokens.admin, { name: `fuzz-${mode.name}`, ...mode.data });
    const secret = hook.secret ?? String(mode.data.providerSecret);
    let valid = 0;
    const seen: Record<number, number> = (statuses[mode.name] = {});
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        let choice = input.credential;
        if (choice === 'valid' && ++valid > VALID_PER_WEBHOOK) choice = 'random';
        // A signature is computed over the text the server will decode: send exactly those bytes.
        const payload = input.body.toString('utf8');
        const bytes = choice === 'valid' || choice === 'tampered' ? Buffer.from(payload) : input.body;
        const sentBytes = choice === 'tampered' ? Buffer.concat([bytes, Buffer.from(' ')]) : bytes;
        const headers = { ...input.headers, ...credentialHeaders(mode, hook, secret, choice, payload, input.shift) };
        const path = mode.name === 'url_token' && choice !== 'valid' && input.pathKind === 'exact' ? `/webhooks/w/${hook.uid}/${choice === 'tampered' ? 'x' : input.segment || 'y'}` : pathFor(hook, input);
        const answer = await send(baseURL!, input.method, path, headers, sentBytes);
        seen[answer.status] = (seen[answer.status] ?? 0) + 1;
        if (answer.status === -1) return; // cut after refusing a large upload
        expect(answer.status, `${input.method} ${path} -> ${answer.status} ${answer.body.slice(0, 200)}`).toBeLessThan(500);
        expect(DOCUMENTED, `${input.method} ${path} -> ${answer.status}`).toContain(answer.status);
        if (answer.status === 202) expect(JSON.parse(answer.body)).toEqual({ delivery_id: expect.any(String) });
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );

    // The webhook still takes a valid delivery.
    const payload = JSON.stringify({ after: 'fuzz', mode: mode.name, at: Date.now() });
    const headers = { 'content-type': 'application/json', 'x-service-delivery-id': `after-fuzz-${Date.now()}`, ...credentialHeaders(mode, hook, secret, 'valid', payload, 0) };
    const after = await send(baseURL!, 'POST', hook.url, headers, Buffer.from(payload), { fresh: true });
    expect(after.status, `${mode.name}: ${after.body}`).toBe(202);
    const { deliveries } = await (await api.get(`/api/v1/factories/acme/webhooks/${hook.uid}/deliveries?limit=1&status=accepted`, { headers: bearer(tokens.admin) })).json();
    expect(deliveries[0].deliveryId).toBe(JSON.parse(after.body).delivery_id);
  }
  console.log(`fuzz statuses per mode (${RUNS} requests each): ${JSON.stringify(statuses)}`);

  const health = await send(baseURL!, 'GET', '/healthz', {}, null, { fresh: true });
  expect({ ...health, body: health.body.trim() }).toEqual({ status: 200, body: 'ok' });
});
