import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verify, xCrcResponse, xCrcTokenShape } from './x';

// The consumer secret and token of X's CRC sample (developer relations' gist, cited in signatures.json).
const SECRET = 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu';
const check = (body: string, header: string) => verify({ rawBody: Buffer.from(body), headers: new Headers({ 'X-Twitter-Webhooks-Signature': header }), secret: SECRET, now: 0 });

describe('X CRC', () => {
  it('answers sha256= and the base64 HMAC of the token under the consumer secret', () => {
    const token = '9b4507b3-9040-4669-9ca3-6b94edb50553';
    expect(xCrcTokenShape(token)).toBe(token);
    expect(xCrcResponse(SECRET, token)).toBe(`sha256=${createHmac('sha256', SECRET).update(token).digest('base64')}`);
  });

  it('is a delivery signature: the answer for a token verifies a delivery whose body is that token', () => {
    const body = '{"a":1}';
    expect(check(body, xCrcResponse(SECRET, body))).toEqual({ ok: true });
  });

  it('refuses hostile and oversized tokens by their shape', () => {
    for (const token of ['<script>', 'a b', 'a\nb', '{"a":1}', 'x'.repeat(256), 'x'.repeat(10_240), '', null]) expect(xCrcTokenShape(token), String(token).slice(0, 10)).toBeNull();
  });
});

describe('X signatures', () => {
  const body = '{"for_user_id":"1","tweet_create_events":[]}';
  it('accepts the base64 HMAC of the body, not the hex one', () => {
    expect(check(body, `sha256=${createHmac('sha256', SECRET).update(body).digest('base64')}`)).toEqual({ ok: true });
    expect(check(body, `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`)).toEqual({ ok: false, reason: 'malformed' });
    expect(check(body, `sha256=${createHmac('sha256', 'other').update(body).digest('base64')}`)).toEqual({ ok: false, reason: 'mismatch' });
  });
});
