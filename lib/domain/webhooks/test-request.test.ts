import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '@/lib/ingress/signatures/verify';
import { TEST_BODY, testRequestCurl } from '@/lib/domain/webhooks/test-request';

/** The headers of a curl command, as a server would receive them. */
function headersOf(curl: string): Headers {
  const headers = new Headers();
  for (const [, name, value] of curl.matchAll(/-H '([^:]+): ([^']*)'/g)) headers.set(name!, value!);
  return headers;
}

describe('testRequestCurl', () => {
  it('signs a Standard Webhooks request that the ingress verifier accepts for 300 s', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const now = 1_800_000_000;
    const curl = testRequestCurl({ ingressUrl: 'https://hooks.example.com/webhooks/w/wh_x', authMode: 'signature', scheme: 'standard-webhooks', secret, now });
    expect(curl).toContain("curl -X POST 'https://hooks.example.com/webhooks/w/wh_x'");
    expect(curl).toContain(`-d '${TEST_BODY}'`);
    const input = { rawBody: Buffer.from(TEST_BODY), headers: headersOf(curl ?? ''), secret, now };
    expect(verifySignature('standard-webhooks', input)).toEqual({ ok: true });
    expect(verifySignature('standard-webhooks', { ...input, now: now + 301 })).toEqual({ ok: false, reason: 'stale' });
  });

  it('offers bearer and URL-token commands, and nothing for schemes only their provider can sign', () => {
    const bearer = testRequestCurl({ ingressUrl: 'https://h/webhooks/w/wh_x', authMode: 'token', scheme: null, secret: null });
    expect(headersOf(bearer ?? '').get('authorization')).toBe('Bearer <secret>');
    expect(testRequestCurl({ ingressUrl: 'https://h/webhooks/w/wh_x', authMode: 'token', scheme: null, secret: 's3cr3t' })).toContain("-H 'Authorization: Bearer s3cr3t'");
    const urlToken = testRequestCurl({ ingressUrl: 'https://h/webhooks/w/wh_x/tok', authMode: 'url_token', scheme: null, secret: 'tok' });
    expect(urlToken).not.toContain('Authorization');
    expect(testRequestCurl({ ingressUrl: 'https://h/webhooks/w/wh_x', authMode: 'signature', scheme: 'github', secret: 'x' })).toBeNull();
    expect(testRequestCurl({ ingressUrl: 'https://h/webhooks/w/wh_x', authMode: 'signature', scheme: 'standard-webhooks', secret: null })).toBeNull();
  });
});
