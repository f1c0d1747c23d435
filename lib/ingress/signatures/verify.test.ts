import { createHash, createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { getScheme, schemeIds, type SchemeId } from './registry';
import type { VerifyInput } from './types';
import { providerBodyDeliveryId, providerDeliveryId, verifiers, verifySignature } from './verify';
import { handshakeOfVector, loadVectors, schemeOf } from './fixtures/vectors';

// The verifiers themselves, bypassing verifySignature's safety net, so a throw fails the test instead of reading as 'malformed'.
const direct = verifiers;

const vectors = loadVectors();

// Any fixed time serves vectors that sign no timestamp.
const FIXED_NOW = 1_700_000_000;

const passed = new Map<SchemeId, number>(schemeIds.map((id) => [id, 0]));
const total = new Map<SchemeId, number>(schemeIds.map((id) => [id, 0]));
const unrepresentable = new Map<SchemeId, number>();
const unmapped: string[] = [];

function hmacHex(key: string, ...parts: (string | Buffer)[]): string {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

describe('published signature vectors', () => {
  vectors.forEach((vector, index) => {
    const scheme = schemeOf(vector);
    if (scheme === undefined) {
      // Unsigned handshakes are answered, not verified: lib/ingress/handshakes.test.ts covers them.
      if (!Object.hasOwn(handshakeOfVector, vector.scheme)) unmapped.push(vector.scheme);
      return;
    }
    total.set(scheme, (total.get(scheme) ?? 0) + 1);
    const headers = new Headers(vector.headers);
    const name = `${vector.scheme} #${index}: ${vector.expected}${vector.reason ? ` (${vector.reason})` : ''}`;

    // WHATWG Headers (like every HTTP parser) strips leading and trailing
    // whitespace from values, so a vector whose point is such whitespace
    // cannot reach a verifier over HTTP. Assert that instead of the outcome;
    // the focused tests below cover the exact-match intent.
    const normalised = Object.entries(vector.headers).filter(([key, value]) => headers.get(key) !== value);
    if (normalised.length > 0) {
      it(`${name}: not representable over HTTP`, () => {
        for (const [key, value] of normalised) expect(headers.get(key)).toBe(value.trim());
        unrepresentable.set(scheme, (unrepresentable.get(scheme) ?? 0) + 1);
      });
      return;
    }

    it(name, () => {
      const result = verifySignature(scheme, {
        rawBody: Buffer.from(vector.body, 'utf8'),
        headers,
        secret: vector.secret ?? '',
        now: vector.now ?? FIXED_NOW,
        url: vector.url,
      });
      expect(result.ok).toBe(vector.expected === 'valid');
      passed.set(scheme, (passed.get(scheme) ?? 0) + 1);
    });
  });

  it('maps every signed vector to a scheme', () => {
    expect(unmapped).toEqual([]);
  });

  afterAll(() => {
    const covered = schemeIds.filter((id) => (total.get(id) ?? 0) > 0 && (passed.get(id) ?? 0) + (unrepresentable.get(id) ?? 0) === total.get(id));
    const lines = schemeIds.map((id) => {
      const extra = unrepresentable.get(id);
      return `${id} ${passed.get(id)}/${total.get(id)}${extra ? ` (${extra} not representable over HTTP)` : ''}`;
    });
    console.log(`signature vectors: ${covered.length} of ${schemeIds.length} schemes with passing vectors; ${lines.join(', ')}`);
  });
});

function vectorInput(index: number, overrides: Partial<VerifyInput> = {}): VerifyInput {
  const vector = vectors[index];
  if (!vector) throw new Error(`no vector #${index}`);
  return {
    rawBody: Buffer.from(vector.body, 'utf8'),
    headers: new Headers(vector.headers),
    secret: vector.secret ?? '',
    now: vector.now ?? FIXED_NOW,
    url: vector.url,
    ...overrides,
  };
}

/** Index of the first valid vector of a scheme: the base the focused tests change one input of. */
function firstValid(scheme: SchemeId): number {
  const index = vectors.findIndex((vector) => schemeOf(vector) === scheme && vector.expected === 'valid');
  if (index < 0) throw new Error(`no valid vector for ${scheme}`);
  return index;
}
const baseVector = Object.fromEntries(schemeIds.map((id) => [id, firstValid(id)])) as Record<SchemeId, number>;
const STANDARD = baseVector['standard-webhooks'];
const GITHUB = baseVector.github;
const STRIPE = baseVector.stripe;
const SLACK = baseVector.slack;
const SHOPIFY = baseVector.shopify;
const LINEAR = baseVector.linear;
const GITLAB = baseVector.gitlab;

// The headers that carry each scheme's signature (Mailgun's and Microsoft Graph's are in the body).
const signatureHeader: Record<Exclude<SchemeId, 'mailgun' | 'microsoft-graph'>, string[]> = {
  'standard-webhooks': ['webhook-signature'],
  'standard-webhooks-v1a': ['webhook-signature'],
  github: ['X-Hub-Signature-256'],
  stripe: ['Stripe-Signature'],
  slack: ['X-Slack-Signature'],
  linear: ['Linear-Signature'],
  shopify: ['X-Shopify-Hmac-Sha256'],
  gitlab: ['X-Gitlab-Token'],
  pagerduty: ['X-PagerDuty-Signature'],
  sentry: ['Sentry-Hook-Signature'],
  paddle: ['Paddle-Signature'],
  square: ['x-square-hmacsha256-signature'],
  twilio: ['X-Twilio-Signature'],
  calendly: ['Calendly-Webhook-Signature'],
  typeform: ['Typeform-Signature'],
  vercel: ['x-vercel-signature'],
  gitea: ['X-Gitea-Signature', 'X-Forgejo-Signature'],
  bitbucket: ['X-Hub-Signature'],
  jira: ['X-Hub-Signature'],
  intercom: ['X-Hub-Signature'],
  zendesk: ['X-Zendesk-Webhook-Signature'],
  twitch: ['Twitch-Eventsub-Message-Signature'],
  zoom: ['x-zm-signature'],
  discord: ['X-Signature-Ed25519'],
  notion: ['X-Notion-Signature'],
  airtable: ['X-Airtable-Content-MAC'],
  asana: ['X-Hook-Signature'],
  dropbox: ['X-Dropbox-Signature'],
  okta: ['Authorization'],
  meta: ['X-Hub-Signature-256'],
  x: ['X-Twitter-Webhooks-Signature'],
};
const headerSchemes = Object.keys(signatureHeader) as (keyof typeof signatureHeader)[];

function withHeaders(scheme: SchemeId, values: Record<string, string>): VerifyInput {
  const input = vectorInput(baseVector[scheme]);
  const headers = new Headers(input.headers);
  for (const [name, value] of Object.entries(values)) headers.set(name, value);
  return { ...input, headers };
}

const setAll = (names: string[], value: string) => Object.fromEntries(names.map((name) => [name, value]));

describe('verifySignature', () => {
  it('starts from valid vectors', () => {
    for (const scheme of schemeIds) expect(verifySignature(scheme, vectorInput(baseVector[scheme])), scheme).toEqual({ ok: true });
  });

  it('rejects a body with one byte changed', () => {
    for (const scheme of headerSchemes) {
      if (scheme === 'gitlab' || scheme === 'okta') continue; // GitLab and Okta sign nothing; their token does not depend on the body.
      const input = vectorInput(baseVector[scheme]);
      const rawBody = Buffer.from(input.rawBody);
      rawBody[rawBody.length - 2] = (rawBody[rawBody.length - 2] ?? 0) ^ 0x01;
      expect(verifySignature(scheme, { ...input, rawBody }), scheme).toEqual({ ok: false, reason: 'mismatch' });
    }
  });

  it('reports missing headers as missing', () => {
    for (const scheme of headerSchemes) {
      expect(verifySignature(scheme, vectorInput(baseVector[scheme], { headers: new Headers() })), scheme).toEqual({ ok: false, reason: 'missing' });
      expect(verifySignature(scheme, withHeaders(scheme, setAll(signatureHeader[scheme], ''))), `${scheme} empty`).toEqual({ ok: false, reason: 'missing' });
    }
    const slack = new Headers(vectorInput(SLACK).headers);
    slack.delete('X-Slack-Request-Timestamp');
    expect(verifySignature('slack', vectorInput(SLACK, { headers: slack }))).toEqual({ ok: false, reason: 'missing' });
    const standard = new Headers(vectorInput(STANDARD).headers);
    standard.delete('webhook-id');
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { headers: standard }))).toEqual({ ok: false, reason: 'missing' });
  });

  it('reports junk headers as malformed', () => {
    const junk = ['junk', 'sha256=xyz', 'v1,not base64!', 't=abc,v1=00', 'v0=zz', '=', ',,,'];
    for (const scheme of headerSchemes) {
      if (scheme === 'gitlab' || scheme === 'okta') continue; // A GitLab or Okta token is opaque: any other value is a mismatch.
      for (const value of junk) {
        expect(direct[scheme](withHeaders(scheme, setAll(signatureHeader[scheme], value))), `${scheme}: ${value}`).toEqual({ ok: false, reason: 'malformed' });
      }
    }
    const badTimestamps: [SchemeId, string, string][] = [
      ['standard-webhooks', 'webhook-timestamp', '1614265330.5'],
      ['standard-webhooks', 'webhook-timestamp', '-1614265330'],
      ['slack', 'X-Slack-Request-Timestamp', 'yesterday'],
    ];
    for (const [scheme, name, value] of badTimestamps) {
      const headers = new Headers(vectorInput(baseVector[scheme]).headers);
      headers.set(name, value);
      expect(direct[scheme](vectorInput(baseVector[scheme], { headers })), `${name}: ${value}`).toEqual({ ok: false, reason: 'malformed' });
    }
    const stripe = vectorInput(STRIPE).headers.get('Stripe-Signature') ?? '';
    const twoTimestamps = new Headers({ 'Stripe-Signature': `t=1,${stripe}` });
    expect(verifySignature('stripe', vectorInput(STRIPE, { headers: twoTimestamps }))).toEqual({ ok: false, reason: 'malformed' });
    const onlyV0 = new Headers({ 'Stripe-Signature': stripe.replace(/,v1=[0-9a-f]+/, '') });
    expect(verifySignature('stripe', vectorInput(STRIPE, { headers: onlyV0 }))).toEqual({ ok: false, reason: 'malformed' });
  });

  it('accepts a Standard Webhooks header whose only valid entry is the last of many', () => {
    const valid = vectorInput(STANDARD).headers.get('webhook-signature') ?? '';
    const decoys = Array.from({ length: 50 }, (_, i) => `v1,${randomBytes(32).toString('base64')} v2,${valid.slice(3)} v1a,${i}`);
    const headers = new Headers(vectorInput(STANDARD).headers);
    headers.set('webhook-signature', `${decoys.join(' ')} ${valid}`);
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { headers }))).toEqual({ ok: true });
    headers.set('webhook-signature', decoys.join(' '));
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { headers }))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('accepts a Stripe header whose only valid v1 is the last of many', () => {
    const header = vectorInput(STRIPE).headers.get('Stripe-Signature') ?? '';
    const [timestamp, ...signatures] = header.split(',');
    const decoys = Array.from({ length: 50 }, () => `v1=${randomBytes(32).toString('hex')}`);
    const valid = signatures.filter((entry) => entry.startsWith('v1='));
    const headers = new Headers({ 'Stripe-Signature': [timestamp, ...decoys, 'v0=00', ...valid].join(',') });
    expect(verifySignature('stripe', vectorInput(STRIPE, { headers }))).toEqual({ ok: true });
    headers.set('Stripe-Signature', [timestamp, ...decoys].join(','));
    expect(verifySignature('stripe', vectorInput(STRIPE, { headers }))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('holds Standard Webhooks to ±300 s, boundaries included', () => {
    const sentAt = 1614265330;
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { now: sentAt + 300 }))).toEqual({ ok: true });
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { now: sentAt - 300 }))).toEqual({ ok: true });
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { now: sentAt + 301 }))).toEqual({ ok: false, reason: 'stale' });
    // A timestamp 301 s in the future.
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { now: sentAt - 301 }))).toEqual({ ok: false, reason: 'stale' });
  });

  it('reports stale only for a genuine signature', () => {
    const headers = new Headers(vectorInput(STANDARD).headers);
    headers.set('webhook-signature', `v1,${randomBytes(32).toString('base64')}`);
    expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { headers, now: 2_000_000_000 }))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('lets Stripe timestamps run ahead of our clock but not fall more than 300 s behind', () => {
    const t = 1533204620;
    expect(verifySignature('stripe', vectorInput(STRIPE, { now: t + 300 }))).toEqual({ ok: true });
    expect(verifySignature('stripe', vectorInput(STRIPE, { now: t + 301 }))).toEqual({ ok: false, reason: 'stale' });
    expect(verifySignature('stripe', vectorInput(STRIPE, { now: t - 3600 }))).toEqual({ ok: true });
  });

  it('holds Slack to five minutes either way', () => {
    const ts = 1531420618;
    expect(verifySignature('slack', vectorInput(SLACK, { now: ts + 300 }))).toEqual({ ok: true });
    expect(verifySignature('slack', vectorInput(SLACK, { now: ts - 301 }))).toEqual({ ok: false, reason: 'stale' });
  });

  it('checks Linear webhookTimestamp (ms) to ±60 s and requires it', () => {
    const sentAt = 1717000000;
    expect(verifySignature('linear', vectorInput(LINEAR, { now: sentAt - 60 }))).toEqual({ ok: true });
    expect(verifySignature('linear', vectorInput(LINEAR, { now: sentAt - 61 }))).toEqual({ ok: false, reason: 'stale' });
    const secret = vectors[LINEAR]?.secret ?? '';
    for (const body of ['{"action":"create"}', '{"webhookTimestamp":"1717000000000"}', '[1717000000000]', 'not json']) {
      const headers = new Headers({ 'Linear-Signature': hmacHex(secret, body) });
      expect(verifySignature('linear', { rawBody: Buffer.from(body), headers, secret, now: sentAt }), body).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('compares the GitLab token exactly, without trimming either side', () => {
    const token = 'gitlab-token-TESTONLY';
    const check = (header: string, secret: string) => verifySignature('gitlab', { rawBody: Buffer.alloc(0), headers: new Headers({ 'X-Gitlab-Token': header }), secret, now: FIXED_NOW });
    expect(check(token, token)).toEqual({ ok: true });
    expect(check(token, `${token} `)).toEqual({ ok: false, reason: 'mismatch' });
    expect(check(`${token}x`, token)).toEqual({ ok: false, reason: 'mismatch' });
    expect(check(token.toLowerCase(), token)).toEqual({ ok: false, reason: 'mismatch' });
    expect(check(token.slice(0, -1), token)).toEqual({ ok: false, reason: 'mismatch' });
    // GitLab sends a non-ASCII token as UTF-8; Headers hands us those bytes one char each.
    expect(check(Buffer.from('jeton-été', 'utf8').toString('latin1'), 'jeton-été')).toEqual({ ok: true });
  });

  it('fails closed on an empty or unusable secret', () => {
    for (const scheme of schemeIds) {
      expect(verifySignature(scheme, vectorInput(baseVector[scheme], { secret: '' })), scheme).toEqual({ ok: false, reason: 'mismatch' });
    }
    for (const secret of ['whsec_', 'whsec_!!!!', 'whsec_a b']) {
      expect(verifySignature('standard-webhooks', vectorInput(STANDARD, { secret })), secret).toEqual({ ok: false, reason: 'mismatch' });
    }
    // An empty X-Gitlab-Token must not match an empty secret either.
    const headers = new Headers({ 'X-Gitlab-Token': '' });
    expect(verifySignature('gitlab', { rawBody: Buffer.alloc(0), headers, secret: '', now: FIXED_NOW }).ok).toBe(false);
  });

  it('keeps the whsec_ prefixes apart: Stripe keys with the whole string, Standard Webhooks with the decoded rest', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = '{"id":"evt_1"}\n';
    const t = '1700000000';
    const stripeHeaders = new Headers({ 'Stripe-Signature': `t=${t},v1=${hmacHex(secret, `${t}.`, body)}` });
    expect(verifySignature('stripe', { rawBody: Buffer.from(body), headers: stripeHeaders, secret, now: 1700000000 })).toEqual({ ok: true });
    const wrongKey = new Headers({ 'Stripe-Signature': `t=${t},v1=${createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`${t}.${body}`).digest('hex')}` });
    expect(verifySignature('stripe', { rawBody: Buffer.from(body), headers: wrongKey, secret, now: 1700000000 })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('verifies non-UTF-8 bodies byte for byte', () => {
    const rawBody = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x7b]);
    const secret = 'binary-secret';
    const github = new Headers({ 'X-Hub-Signature-256': `sha256=${hmacHex(secret, rawBody)}` });
    expect(verifySignature('github', { rawBody, headers: github, secret, now: FIXED_NOW })).toEqual({ ok: true });
    const shopify = new Headers({ 'X-Shopify-Hmac-Sha256': createHmac('sha256', secret).update(rawBody).digest('base64') });
    expect(verifySignature('shopify', { rawBody, headers: shopify, secret, now: FIXED_NOW })).toEqual({ ok: true });
    const slack = new Headers({ 'X-Slack-Request-Timestamp': String(FIXED_NOW), 'X-Slack-Signature': `v0=${hmacHex(secret, `v0:${FIXED_NOW}:`, rawBody)}` });
    expect(verifySignature('slack', { rawBody, headers: slack, secret, now: FIXED_NOW })).toEqual({ ok: true });
    // Re-encoding the body as a string would have replaced the invalid bytes and broken the signature.
    const lossy = Buffer.from(rawBody.toString('utf8'), 'utf8');
    expect(verifySignature('github', { rawBody: lossy, headers: github, secret, now: FIXED_NOW })).toEqual({ ok: false, reason: 'mismatch' });
    const linear = new Headers({ 'Linear-Signature': hmacHex(secret, rawBody) });
    expect(verifySignature('linear', { rawBody, headers: linear, secret, now: FIXED_NOW })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('does not throw on huge or hostile headers', () => {
    const huge = [
      'A'.repeat(100 * 1024),
      `v1,${'A'.repeat(100 * 1024)}`,
      Array.from({ length: 5000 }, () => 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=').join(' ').slice(0, 100 * 1024),
      `t=1,${'v1=0,'.repeat(20 * 1024)}`,
      `sha256=${'f'.repeat(100 * 1024)}`,
      '\u00ff'.repeat(100 * 1024),
    ];
    for (const scheme of headerSchemes) {
      for (const value of huge) {
        const names = ['webhook-id', 'webhook-timestamp', ...signatureHeader[scheme], 'X-Slack-Request-Timestamp', 'X-Signature-Timestamp', 'Twitch-Eventsub-Message-Timestamp'];
        expect(direct[scheme](withHeaders(scheme, setAll(names, value))).ok, scheme).toBe(false);
      }
    }
  });

  it('refuses a scheme id that is not in the registry', () => {
    expect(verifySignature('toString' as SchemeId, vectorInput(GITHUB))).toEqual({ ok: false, reason: 'mismatch' });
  });
});

describe('the provider catalogue', () => {
  const at = (scheme: SchemeId, overrides: Partial<VerifyInput> = {}) => verifySignature(scheme, vectorInput(baseVector[scheme], overrides));

  it('keys PagerDuty with the secret text, not its base64 decoding', () => {
    const input = vectorInput(baseVector.pagerduty);
    const decodedKey = Buffer.from(input.secret, 'base64');
    const headers = new Headers({ 'X-PagerDuty-Signature': `v1=${createHmac('sha256', decodedKey).update(input.rawBody).digest('hex')}` });
    expect(verifySignature('pagerduty', { ...input, headers })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('keys Airtable with the base64-decoded secret, not its text', () => {
    const input = vectorInput(baseVector.airtable);
    const headers = new Headers({ 'X-Airtable-Content-MAC': `hmac-sha256=${hmacHex(input.secret, input.rawBody)}` });
    expect(verifySignature('airtable', { ...input, headers })).toEqual({ ok: false, reason: 'mismatch' });
    expect(at('airtable', { secret: 'not base64!' })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('holds Paddle to 5 s in the past and lets its stamp run ahead', () => {
    const ts = 1696195954;
    expect(at('paddle', { now: ts + 5 })).toEqual({ ok: true });
    expect(at('paddle', { now: ts + 6 })).toEqual({ ok: false, reason: 'stale' });
    expect(at('paddle', { now: ts - 600 })).toEqual({ ok: true });
  });

  it('holds Calendly to 180 s and Twitch to 10 min in the past', () => {
    expect(at('calendly', { now: 1717000180 })).toEqual({ ok: true });
    expect(at('calendly', { now: 1717000181 })).toEqual({ ok: false, reason: 'stale' });
    expect(at('twitch', { now: 1717000600 })).toEqual({ ok: true });
    expect(at('twitch', { now: 1717000601 })).toEqual({ ok: false, reason: 'stale' });
    expect(at('twitch', { now: 1716990000 })).toEqual({ ok: true });
  });

  it('refuses Twitch timestamps that are not RFC 3339 UTC', () => {
    for (const value of ['1717000000', '2024-05-29T16:26:40+00:00', '2024-02-31T00:00:00Z', '2024-05-29T16:26:40.1234567890Z']) {
      expect(verifySignature('twitch', withHeaders('twitch', { 'Twitch-Eventsub-Message-Timestamp': value })), value).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('binds Square and Twilio signatures to the URL posted to', () => {
    expect(at('square', { url: undefined })).toEqual({ ok: false, reason: 'mismatch' });
    expect(at('square', { url: `${vectors[baseVector.square]!.url}/` })).toEqual({ ok: false, reason: 'mismatch' });
    expect(at('twilio', { url: 'https://mycompany.com/myapp.php?foo=1&bar=3' })).toEqual({ ok: false, reason: 'mismatch' });
    // Twilio's libraries accept the URL with the default port written out, and so do we.
    expect(at('twilio', { url: 'https://mycompany.com:443/myapp.php?foo=1&bar=2' })).toEqual({ ok: true });
    expect(at('twilio', { url: 'https://mycompany.com:444/myapp.php?foo=1&bar=2' })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('checks Twilio’s bodySHA256 against the JSON body', () => {
    const json = vectors.findIndex((vector) => vector.scheme === 'twilio-json');
    expect(verifySignature('twilio', vectorInput(json))).toEqual({ ok: true });
    expect(verifySignature('twilio', vectorInput(json, { rawBody: Buffer.from('{"property": "other", "boolean": true}') }))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('verifies Zendesk over the timestamp too', () => {
    expect(verifySignature('zendesk', withHeaders('zendesk', { 'X-Zendesk-Webhook-Signature-Timestamp': '2024-05-29T16:26:41Z' }))).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('accepts Gitea’s header without Forgejo’s', () => {
    const headers = new Headers(vectorInput(baseVector.gitea).headers);
    headers.delete('X-Forgejo-Signature');
    expect(at('gitea', { headers })).toEqual({ ok: true });
  });

  it('checks Discord’s Ed25519 signature with the application public key', () => {
    expect(verifySignature('discord', withHeaders('discord', { 'X-Signature-Timestamp': '1717000001' }))).toEqual({ ok: false, reason: 'mismatch' });
    const { publicKey } = generateKeyPairSync('ed25519');
    const otherKey = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex');
    expect(at('discord', { secret: otherKey })).toEqual({ ok: false, reason: 'mismatch' });
    expect(at('discord', { secret: 'zz'.repeat(32) })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('verifies Standard Webhooks v1a only with a whpk_ public key, skipping v1 entries', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const whpk = `whpk_${Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('base64')}`;
    const body = '{"hello":"world"}';
    const signature = sign(null, Buffer.from(`msg_1.1700000000.${body}`), privateKey).toString('base64');
    const headers = new Headers({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': `v1,${randomBytes(32).toString('base64')} v1a,${signature}` });
    const input = { rawBody: Buffer.from(body), headers, secret: whpk, now: 1700000000 };
    expect(verifySignature('standard-webhooks-v1a', input)).toEqual({ ok: true });
    expect(verifySignature('standard-webhooks-v1a', { ...input, now: 1700000301 })).toEqual({ ok: false, reason: 'stale' });
    expect(verifySignature('standard-webhooks-v1a', { ...input, secret: whpk.replace('whpk_', 'whsec_') })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature('standard-webhooks-v1a', { ...input, rawBody: Buffer.from(`${body} `) })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('authenticates Mailgun by the timestamp and token in the body, which is all Mailgun signs', () => {
    const body = JSON.parse(vectors[baseVector.mailgun]!.body) as { signature: { token: string }; 'event-data': { event: string } };
    body['event-data'].event = 'failed';
    expect(at('mailgun', { rawBody: Buffer.from(JSON.stringify(body)) })).toEqual({ ok: true });
    body.signature.token = `${body.signature.token}0`;
    expect(at('mailgun', { rawBody: Buffer.from(JSON.stringify(body)) })).toEqual({ ok: false, reason: 'mismatch' });
    for (const raw of ['not json', '{}', '[1]']) expect(at('mailgun', { rawBody: Buffer.from(raw) }), raw).toEqual({ ok: false, reason: 'missing' });
    expect(at('mailgun', { rawBody: Buffer.from('{"signature":{"timestamp":1}}') })).toEqual({ ok: false, reason: 'malformed' });
    // Mailgun sets no window; Tripline refuses a signature over a day old (it covers no event data), and names its token as the identity.
    const original = JSON.parse(vectors[baseVector.mailgun]!.body) as { signature: { timestamp: string; token: string } };
    const rawBody = Buffer.from(vectors[baseVector.mailgun]!.body);
    const signedAt = Number(original.signature.timestamp);
    expect(at('mailgun', { rawBody, now: signedAt + 86_400 })).toEqual({ ok: true });
    expect(at('mailgun', { rawBody, now: signedAt + 86_401 })).toEqual({ ok: false, reason: 'stale' });
    expect(providerBodyDeliveryId('mailgun', original)).toBe(original.signature.token);
  });

  it('computes what the registry documents for the body-HMAC schemes', () => {
    // One recomputation per scheme with a fresh secret and body, so the vectors are not the only witnesses.
    const secret = `s-${randomBytes(8).toString('hex')}`;
    const body = Buffer.from(`{"n":${Date.now()}}`);
    const mac = (algorithm: string, key: string | Buffer = secret) => createHmac(algorithm, key).update(body);
    const cases: [SchemeId, Record<string, string>][] = [
      ['sentry', { 'Sentry-Hook-Signature': mac('sha256').digest('hex') }],
      ['typeform', { 'Typeform-Signature': `sha256=${mac('sha256').digest('base64')}` }],
      ['vercel', { 'x-vercel-signature': mac('sha1').digest('hex') }],
      ['bitbucket', { 'X-Hub-Signature': `sha256=${mac('sha256').digest('hex')}` }],
      ['jira', { 'X-Hub-Signature': `sha256=${mac('sha256').digest('hex')}` }],
      ['intercom', { 'X-Hub-Signature': `sha1=${mac('sha1').digest('hex')}` }],
      ['notion', { 'X-Notion-Signature': `sha256=${mac('sha256').digest('hex')}` }],
      ['asana', { 'X-Hook-Signature': mac('sha256').digest('hex') }],
      ['dropbox', { 'X-Dropbox-Signature': mac('sha256').digest('hex') }],
      ['pagerduty', { 'X-PagerDuty-Signature': `v1=${'0'.repeat(64)}, v1=${mac('sha256').digest('hex')}` }],
      ['gitea', { 'X-Forgejo-Signature': mac('sha256').digest('hex') }],
    ];
    for (const [scheme, headers] of cases) {
      expect(verifySignature(scheme, { rawBody: body, headers: new Headers(headers), secret, now: FIXED_NOW }), scheme).toEqual({ ok: true });
      expect(verifySignature(scheme, { rawBody: body, headers: new Headers(headers), secret: `${secret}x`, now: FIXED_NOW }), scheme).toEqual({ ok: false, reason: 'mismatch' });
    }
    const sha = createHash('sha256').update(body).digest('hex');
    const url = `https://hooks.example.com/webhooks/w/wh_x?bodySHA256=${sha}`;
    const twilio = new Headers({ 'X-Twilio-Signature': createHmac('sha1', secret).update(url).digest('base64') });
    expect(verifySignature('twilio', { rawBody: body, headers: twilio, secret, now: FIXED_NOW, url })).toEqual({ ok: true });
  });
});

describe('secret formats', () => {
  it('accept every vector’s secret, so a real provider secret is never refused at entry', () => {
    for (const vector of vectors) {
      const scheme = schemeOf(vector);
      const format = scheme ? getScheme(scheme)?.secretFormat : undefined;
      if (format && vector.secret) expect(vector.secret, `${vector.scheme}`).toMatch(format.pattern);
    }
    expect(getScheme('paddle')?.secretFormat?.pattern.test('pdl_ntfset_01hv8x2acma5xrcv1a2b3c4d5e_AbCdEf')).toBe(true);
    expect(getScheme('discord')?.secretFormat?.pattern.test('whsec_abc')).toBe(false);
  });
});

describe('Standard Webhooks against the standardwebhooks package', () => {
  it('verifies what the reference library signs, and nothing else', () => {
    const payloads = ['{"test": 2432232314}', '', '{"emoji":"🪝","quote":"\\"","nl":"\\n"}\n', 'x'.repeat(100_000)];
    for (const payload of payloads) {
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const webhook = new Webhook(secret);
      const msgId = `msg_${randomBytes(12).toString('hex')}`;
      const now = Math.floor(Date.now() / 1000);
      const signature = webhook.sign(msgId, new Date(now * 1000), payload);
      const headers = new Headers({ 'webhook-id': msgId, 'webhook-timestamp': String(now), 'webhook-signature': signature });
      const input = { rawBody: Buffer.from(payload, 'utf8'), headers, secret, now };
      expect(verifySignature('standard-webhooks', input)).toEqual({ ok: true });
      // The library agrees the same delivery is valid, so the two implementations sign the same content.
      expect(() => webhook.verify(payload, Object.fromEntries(headers), { jsonParse: false })).not.toThrow();

      const svix = new Headers({ 'svix-id': msgId, 'svix-timestamp': String(now), 'svix-signature': signature });
      expect(verifySignature('standard-webhooks', { ...input, headers: svix })).toEqual({ ok: true });

      const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;
      expect(verifySignature('standard-webhooks', { ...input, secret: otherSecret })).toEqual({ ok: false, reason: 'mismatch' });
      expect(verifySignature('standard-webhooks', { ...input, rawBody: Buffer.from(`${payload} `, 'utf8') })).toEqual({ ok: false, reason: 'mismatch' });
      const otherId = new Headers(headers);
      otherId.set('webhook-id', `${msgId}x`);
      expect(verifySignature('standard-webhooks', { ...input, headers: otherId })).toEqual({ ok: false, reason: 'mismatch' });
    }
  });
});

describe('providerDeliveryId', () => {
  it('reads the registry header, with svix-id as the Standard Webhooks fallback', () => {
    expect(providerDeliveryId('standard-webhooks', new Headers({ 'webhook-id': 'msg_1', 'svix-id': 'msg_2' }))).toBe('msg_1');
    expect(providerDeliveryId('standard-webhooks', new Headers({ 'svix-id': 'msg_2' }))).toBe('msg_2');
    expect(providerDeliveryId('github', new Headers({ 'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' }))).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958');
    expect(providerDeliveryId('linear', vectorInput(LINEAR).headers)).toBe('1f0a3c1e-5b8e-4a51-9a2d-3c0e7d2f9b11');
    expect(providerDeliveryId('shopify', vectorInput(SHOPIFY).headers)).toBe('123456789');
    // GitLab 17.4+: Idempotency-Key, the same on a retry or a resend, before the per-request X-Gitlab-Event-UUID (all older GitLab sends).
    expect(providerDeliveryId('gitlab', vectorInput(GITLAB).headers)).toBe('f5e5f430-f57b-4e6e-9fac-d9128cd7232f');
    expect(providerDeliveryId('gitlab', new Headers({ 'X-Gitlab-Event-UUID': '13792a34-cac6-4fda-95a8-c58e00a3954e' }))).toBe('13792a34-cac6-4fda-95a8-c58e00a3954e');
    expect(providerDeliveryId('stripe', vectorInput(STRIPE).headers)).toBeNull();
    expect(providerDeliveryId('slack', vectorInput(SLACK).headers)).toBeNull();
    expect(providerDeliveryId('github', new Headers())).toBeNull();
    expect(providerDeliveryId('github', new Headers({ 'X-GitHub-Delivery': '' }))).toBeNull();
    expect(providerDeliveryId('gitea', new Headers({ 'X-Forgejo-Delivery': 'fj-1' }))).toBe('fj-1');
  });

  it('reads the delivery ID each provider sends in the vectors', () => {
    const expected: Partial<Record<SchemeId, [string, string]>> = {
      sentry: ['Request-ID', '0f3d2c7e8b6a4e1f9d2c3b4a5e6f7a8b'],
      gitea: ['X-Gitea-Delivery', '6b5e3d1c-2f4a-4b8e-9c7d-0e1f2a3b4c5d'],
      bitbucket: ['X-Request-UUID', '3e9d4f1a-7b2c-4d5e-8f6a-9b0c1d2e3f4a'],
      jira: ['X-Atlassian-Webhook-Identifier', '7342195'],
      zendesk: ['X-Zendesk-Webhook-Invocation-Id', '8350205582'],
      twitch: ['Twitch-Eventsub-Message-Id', 'befa7b53-d79d-478f-86b9-120f112b044e'],
    };
    for (const [scheme, [header, id]] of Object.entries(expected) as [SchemeId, [string, string]][]) {
      expect(vectors[baseVector[scheme]]!.headers[header], scheme).toBe(id);
      expect(providerDeliveryId(scheme, vectorInput(baseVector[scheme]).headers), scheme).toBe(id);
    }
  });
});
