import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { metaChallenge, metaVerifyToken, verify } from './meta';

const SECRET = 'meta-app-secret-TESTONLY';
const BODY = '{"object":"page","entry":[]}';
const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const check = (header: string, body = BODY) => verify({ rawBody: Buffer.from(body), headers: new Headers({ 'X-Hub-Signature-256': header }), secret: SECRET, now: 0 });

describe('Meta signatures', () => {
  it('accepts the hex HMAC of the body under the app secret, and nothing else', () => {
    expect(check(sign(SECRET, BODY))).toEqual({ ok: true });
    expect(check(sign('other', BODY))).toEqual({ ok: false, reason: 'mismatch' });
    expect(check(sign(SECRET, BODY), `${BODY} `)).toEqual({ ok: false, reason: 'mismatch' });
    expect(check(sign(SECRET, BODY).slice('sha256='.length))).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('Meta verify token', () => {
  it('differs per webhook and per secret, and is stable', () => {
    const token = metaVerifyToken(SECRET, 'wh_a');
    expect(token).toBe(metaVerifyToken(SECRET, 'wh_a'));
    expect(token).not.toBe(metaVerifyToken(SECRET, 'wh_b'));
    expect(token).not.toBe(metaVerifyToken('another', 'wh_a'));
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('is never a delivery signature: base64url under its own label, not the hex HMAC of a JSON body', () => {
    const token = metaVerifyToken(SECRET, 'wh_a');
    expect(check(`sha256=${token}`)).toEqual({ ok: false, reason: 'malformed' });
    const asHex = `sha256=${Buffer.from(token, 'base64url').toString('hex')}`;
    expect(check(asHex, 'wh_a')).toEqual({ ok: false, reason: 'mismatch' });
  });
});

describe('Meta hub.challenge', () => {
  it('echoes Meta’s int, and refuses HTML, control characters, 10 KB and nothing', () => {
    expect(metaChallenge('1158201444')).toBe('1158201444');
    for (const value of ['<b>1</b>', '1 2', '1\n2', 'x'.repeat(10_240), '', null]) expect(metaChallenge(value), String(value).slice(0, 10)).toBeNull();
  });
});
