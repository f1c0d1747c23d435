import { bearer, expect, test } from '../fixtures/api';

test.describe('GET /api/v1/factories', () => {
  test('lists the caller’s factories with their role', async ({ request, tokens }) => {
    const admin = await request.get('/api/v1/factories', { headers: bearer(tokens.admin) });
    expect(admin.status()).toBe(200);
    expect(await admin.json()).toEqual({ factories: [{ slug: 'acme', name: 'Acme Ops', role: 'admin' }] });

    const viewer = await request.get('/api/v1/factories', { headers: bearer(tokens.viewer) });
    expect(await viewer.json()).toEqual({ factories: [{ slug: 'acme', name: 'Acme Ops', role: 'viewer' }] });

    const outsider = await request.get('/api/v1/factories', { headers: bearer(tokens.outsider) });
    expect(await outsider.json()).toEqual({ factories: [{ slug: 'globex', name: 'Globex', role: 'admin' }] });

    const loner = await request.get('/api/v1/factories', { headers: bearer(tokens.loner) });
    expect(await loner.json()).toEqual({ factories: [] });
  });

  for (const [label, headers] of [
    ['no Authorization header', {}],
    ['an unknown token', { Authorization: 'Bearer trl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['a malformed header', { Authorization: 'Basic dXNlcjpwYXNz' }],
  ] as const) {
    test(`answers 401 with a JSON error for ${label}`, async ({ request }) => {
      const response = await request.get('/api/v1/factories', { headers });
      expect(response.status()).toBe(401);
      expect(response.headers()['content-type']).toContain('application/json');
      expect(response.headers()['www-authenticate']).toContain('Bearer');
      const body = await response.json();
      expect(body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    });
  }
});
