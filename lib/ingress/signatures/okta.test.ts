import { describe, expect, it } from 'vitest';
import { oktaAuthorized, verify } from './okta';

// The values of Okta's published verification request (support.okta.com, "Unable to verify event hook").
const SECRET = 'my-shared-secret';
const check = (headers: Record<string, string>, secret = SECRET) => verify({ rawBody: Buffer.from('{}'), headers: new Headers(headers), secret, now: 0 });

describe('Okta event hooks', () => {
  it('accepts the secret verbatim in Authorization', () => {
    expect(check({ Authorization: SECRET })).toEqual({ ok: true });
  });

  it('refuses anything else: another value, a Bearer prefix, another header, no header', () => {
    expect(check({ Authorization: 'my-shared-secreT' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ Authorization: `Bearer ${SECRET}` })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ 'X-Okta-Secret': SECRET })).toEqual({ ok: false, reason: 'missing' });
    expect(check({ Authorization: '' })).toEqual({ ok: false, reason: 'missing' });
    expect(check({ Authorization: '' }, '')).toEqual({ ok: false, reason: 'missing' });
    expect(check({ Authorization: 'x' }, '')).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('is the same check the verification GET must pass', () => {
    expect(oktaAuthorized(new Headers({ Authorization: SECRET, 'X-Okta-Verification-Challenge': 'c' }), SECRET)).toEqual({ ok: true });
    expect(oktaAuthorized(new Headers({ 'X-Okta-Verification-Challenge': 'c' }), SECRET).ok).toBe(false);
  });
});
