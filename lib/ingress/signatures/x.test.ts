import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '@/lib/ingress/json';
import { verify, xCrcResponse, xCrcToken } from './x';

// The consumer secret and token of X's CRC sample (developer relations' gist, cited in signatures.json).
const SECRET = 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu';
const check = (body: string, header: string) => verify({ rawBody: Buffer.from(body), headers: new Headers({ 'X-Twitter-Webhooks-Signature': header }), secret: SECRET, now: 0 });

describe('X CRC', () => {
  it('answers sha256= and the base64 HMAC of the token under the consumer secret', () => {
    const token = '9b4507b3-9040-4669-9ca3-6b94edb50553';
    expect(xCrcToken(token)).toBe(token);
    expect(xCrcResponse(SECRET, token)).toBe(`sha256=${createHmac('sha256', SECRET).update(token).digest('base64')}`);
  });

  it('never answers a token the ingress would take as a body', () => {
    for (const token of ['{"a":1}', '123', '-1', '1.5', '1e5', 'true', 'false', 'null', '"a"', '[]', '[1]']) expect(xCrcToken(token), token).toBeNull();
  });

  it('holds by construction: every token it answers is refused by the JSON parser', () => {
    const candidates = ['abc', 'AbC+/=', '0x1', '00', '1.', '.5', 'Infinity', 'NaN', 'true1', 'nul', '-', '1-1', 'e5', '9b4507b3-9040-4669-9ca3-6b94edb50553', 'YWJj', 'a_b.c'];
    for (const token of candidates) {
      if (xCrcToken(token) !== null) expect(parseJsonBody(Buffer.from(token)).ok, token).toBe(false);
    }
    // So the signature an answer amounts to only ever signs a body the ingress rejects as invalid JSON.
    const answered = '9b4507b3-9040-4669-9ca3-6b94edb50553';
    expect(check(answered, xCrcResponse(SECRET, answered))).toEqual({ ok: true });
    expect(parseJsonBody(Buffer.from(answered)).ok).toBe(false);
  });

  it('refuses hostile and oversized tokens', () => {
    for (const token of ['<script>', 'a b', 'a\nb', 'x'.repeat(256), 'x'.repeat(10_240), '', null]) expect(xCrcToken(token), String(token).slice(0, 10)).toBeNull();
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
