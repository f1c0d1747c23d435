import { describe, expect, it } from 'vitest';
import { answerableCrcToken } from './challenge-tokens';
import { parseJsonBody } from './json';
import { verify, xCrcResponse } from './signatures/x';

const SECRET = 'z3ZX4v7mAAUGykl3EcmkqbartmuW8VFOOzCloLx9Q45P0hLrFu';
// Bodies the ingress accepts that X's token charset can spell.
const bodies = ['123', '-1', '1.5', '1e5', '0', '-0', 'true', 'false', 'null'];

describe('X crc_token', () => {
  it('answers X’s tokens', () => {
    for (const token of ['9b4507b3-9040-4669-9ca3-6b94edb50553', 'YWJjZGVm', 'a_b-c+d/e=']) expect(answerableCrcToken(token)).toBe(token);
  });

  it('never answers a token with a dot: its answer, in hex, would be a Stripe-style signature of the body after the dot', () => {
    for (const token of ['9999999999.true', '1.5', 'a_b.c']) expect(answerableCrcToken(token), token).toBeNull();
  });

  it('never answers a token the ingress would accept as a body, nor JSON of any other shape', () => {
    for (const token of [...bodies, '{"a":1}', '"a"', '[]', '[1]']) expect(answerableCrcToken(token), token).toBeNull();
  });

  it('holds by construction: every token it answers is refused by the JSON parser', () => {
    const near = ['abc', 'AbC+/=', '0x1', '00', 'Infinity', 'NaN', 'true1', 'nul', '-', '1-1', 'e5', '1e', '9b4507b3-9040-4669-9ca3-6b94edb50553', 'YWJj', 'a_b-c'];
    const answered = [...bodies, ...near].filter((token) => answerableCrcToken(token) !== null);
    expect(answered).toEqual(near);
    for (const token of answered) expect(parseJsonBody(Buffer.from(token)).ok, token).toBe(false);
  });

  it('refuses what the parser accepts, because its answer is a valid signature of that body', () => {
    for (const body of bodies) {
      expect(parseJsonBody(Buffer.from(body)).ok, body).toBe(true);
      const signed = verify({ rawBody: Buffer.from(body), headers: new Headers({ 'X-Twitter-Webhooks-Signature': xCrcResponse(SECRET, body) }), secret: SECRET, now: 0 });
      expect(signed).toEqual({ ok: true });
      expect(answerableCrcToken(body)).toBeNull();
    }
  });
});
