import { describe, expect, it } from 'vitest';
import { securityHeaders } from '@/lib/platform/http/security-headers';

describe('securityHeaders', () => {
  it('gives each page a policy with a fresh nonce, handed to Next.js in the request too', () => {
    const first = securityHeaders('/f/acme/automations', { https: false, dev: false });
    const second = securityHeaders('/f/acme/automations', { https: false, dev: false });
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(first.response['Content-Security-Policy']!)?.[1];
    expect(nonce).toHaveLength(24);
    expect(second.response['Content-Security-Policy']).not.toContain(nonce);
    expect(first.requestPolicy).toBe(first.response['Content-Security-Policy']);
    expect(first.response['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    expect(first.response['Content-Security-Policy']).not.toContain('unsafe-eval');
    expect(first.response).toMatchObject({ 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' });
    expect(first.response['Strict-Transport-Security']).toBeUndefined();
  });

  it('sends HSTS only when the public URL is https', () => {
    expect(securityHeaders('/', { https: true, dev: false }).response['Strict-Transport-Security']).toBe('max-age=31536000');
    expect(securityHeaders('/webhooks/w/wh_x', { https: true, dev: false }).response['Strict-Transport-Security']).toBe('max-age=31536000');
  });

  it('gives the ingress and the API no page policy and no nonce', () => {
    for (const url of ['/webhooks/w/wh_abc', '/api/v1/factories']) {
      const headers = securityHeaders(url, { https: false, dev: false });
      expect(headers.requestPolicy).toBeNull();
      expect(headers.response['Content-Security-Policy']).toMatch(/^default-src 'none'; frame-ancestors 'none'/);
    }
    // The ingress's answers (an admin's XML or text among them) are sandboxed and may post no form.
    expect(securityHeaders('/webhooks/w/wh_abc', { https: false, dev: false }).response['Content-Security-Policy']).toBe("default-src 'none'; frame-ancestors 'none'; form-action 'none'; sandbox");
  });
});
