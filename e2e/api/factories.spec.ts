import { bearer, expect, test } from '../fixtures/api';

test.describe('GET /api/v1/factories', () => {
  test('lists the caller’s factories with their role', async ({ request, tokens }) => {
    const admin = await request.get('/api/v1/factories', { headers: bearer(tokens.admin) });
    expect(admin.status()).toBe(200);
    // The instance admin also holds the factories other specs created for themselves (e2e/api/automations.spec.ts), never Globex.
    const { factories } = (await admin.json()) as { factories: { slug: string; name: string; role: string }[] };
    expect(factories).toContainEqual({ slug: 'acme', name: 'Acme Ops', role: 'admin' });
    expect(factories.map((factory) => factory.slug)).not.toContain('globex');
    expect(factories.every((factory) => factory.role === 'admin')).toBe(true);

    const viewer = await request.get('/api/v1/factories', { headers: bearer(tokens.viewer) });
    expect(await viewer.json()).toEqual({ factories: [{ slug: 'acme', name: 'Acme Ops', role: 'viewer' }], nextCursor: null, total: 1 });

    const outsider = await request.get('/api/v1/factories', { headers: bearer(tokens.outsider) });
    expect(await outsider.json()).toEqual({ factories: [{ slug: 'globex', name: 'Globex', role: 'admin' }], nextCursor: null, total: 1 });

    const loner = await request.get('/api/v1/factories', { headers: bearer(tokens.loner) });
    expect(await loner.json()).toEqual({ factories: [], nextCursor: null, total: 0 });
  });

  test('pages by a cursor: each page bounded, every factory once, in name order', async ({ request, tokens }) => {
    const admin = bearer(tokens.admin);
    // The admin belongs to acme, those other specs made, and three more: a page of 2 makes them several pages.
    const stem = Date.now().toString(36);
    for (const n of [1, 2, 3]) expect((await request.post('/api/v1/factories', { headers: admin, data: { name: `Paging ${n}`, slug: `paging-${stem}-${n}` } })).status()).toBe(201);
    type Page = { factories: { slug: string; name: string; role: string }[]; nextCursor: string | null; total: number };
    /** Every page by the cursor, `limit` a page: each bounded, each with the same total. */
    const walk = async (limit: number) => {
      const pages: Page[] = [];
      let cursor: string | null = null;
      do {
        const response = await request.get(`/api/v1/factories?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: admin });
        expect(response.status()).toBe(200);
        const page = (await response.json()) as Page;
        expect(page.factories.length).toBeLessThanOrEqual(limit);
        expect(page.total).toBe(pages[0]?.total ?? page.total);
        pages.push(page);
        cursor = page.nextCursor;
      } while (cursor && pages.length <= 1_000);
      return { pages, slugs: pages.flatMap((page) => page.factories.map((factory) => factory.slug)), total: pages[0]!.total };
    };
    const byHundred = await walk(100);
    expect(byHundred.total).toBeGreaterThanOrEqual(4);
    expect(byHundred.slugs).toHaveLength(byHundred.total);
    expect(new Set(byHundred.slugs).size).toBe(byHundred.total);
    // By name: Paging 1, 2 and 3 one after another.
    const at = byHundred.slugs.indexOf(`paging-${stem}-1`);
    expect(byHundred.slugs.slice(at, at + 3)).toEqual([1, 2, 3].map((n) => `paging-${stem}-${n}`));
    expect(byHundred.slugs).toContain('acme');
    const byTwo = await walk(2);
    expect(byTwo.pages).toHaveLength(Math.ceil(byHundred.total / 2));
    expect(byTwo.pages.at(-1)!.nextCursor).toBeNull();
    expect(byTwo.slugs).toEqual(byHundred.slugs);

    // Out of bounds or not a cursor of this API: a 422 naming the parameter.
    const refusals: [query: string, field: string, message: string][] = [
      ['limit=0', 'limit', 'limit must be 1 to 100'],
      ['limit=101', 'limit', 'limit must be 1 to 100'],
      ['cursor=not-a-cursor', 'cursor', 'Use the nextCursor of a previous page'],
      [`cursor=${'x'.repeat(401)}`, 'cursor', 'Use the nextCursor of a previous page'],
    ];
    for (const [query, field, message] of refusals) {
      const refused = await request.get(`/api/v1/factories?${query}`, { headers: admin });
      expect(refused.status(), query).toBe(422);
      expect((await refused.json()).error.fields, query).toEqual({ [field]: message });
    }
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

test.describe('POST /api/v1/factories', () => {
  test('only instance admins create factories (TRIPLINE_FACTORY_CREATION defaults to admins)', async ({ request, tokens }) => {
    for (const key of ['editor', 'outsider', 'loner'] as const) {
      const refused = await request.post('/api/v1/factories', { headers: bearer(tokens[key]), data: { name: 'Not Mine', slug: `not-mine-${key}` } });
      expect(refused.status()).toBe(403);
      expect((await refused.json()).error.message).toMatch(/Only instance admins can create factories/);
    }
    // The seeded admin ran the first setup: the instance admin.
    const created = await request.post('/api/v1/factories', { headers: bearer(tokens.admin), data: { name: 'Made By API', slug: 'made-by-api' } });
    expect(created.status()).toBe(201);
    expect(await created.json()).toEqual({ factory: { slug: 'made-by-api', name: 'Made By API', role: 'admin' } });
    const listed = await (await request.get('/api/v1/factories', { headers: bearer(tokens.admin) })).json();
    expect(listed.factories.map((f: { slug: string }) => f.slug)).toContain('made-by-api');
    const taken = await request.post('/api/v1/factories', { headers: bearer(tokens.admin), data: { name: 'Again', slug: 'made-by-api' } });
    expect(taken.status()).toBe(409);
  });
});

test.describe('/api/v1/factories/{factory}/invitations', () => {
  test('admins create (the link once), list and revoke invitations; others may not', async ({ request, tokens }) => {
    for (const key of ['editor', 'viewer'] as const) {
      const refused = await request.post('/api/v1/factories/acme/invitations', { headers: bearer(tokens[key]), data: { email: 'x@acme.test', role: 'viewer' } });
      expect(refused.status()).toBe(403);
    }
    expect((await request.get('/api/v1/factories/acme/invitations', { headers: bearer(tokens.outsider) })).status()).toBe(404);

    const created = await request.post('/api/v1/factories/acme/invitations', { headers: bearer(tokens.admin), data: { email: 'New.Person@acme.test', role: 'editor' } });
    expect(created.status()).toBe(201);
    const { invitation, url } = await created.json();
    expect(invitation).toMatchObject({ email: 'new.person@acme.test', role: 'editor', invitedBy: 'admin@acme.test' });
    expect(url).toMatch(/\/invite\/inv_[A-Za-z0-9_-]{43}$/);

    const listed = await request.get('/api/v1/factories/acme/invitations', { headers: bearer(tokens.admin) });
    const text = await listed.text();
    expect(JSON.parse(text).invitations.map((i: { id: string }) => i.id)).toContain(invitation.id);
    expect(text).not.toContain(new URL(url).pathname.split('/').at(-1));

    // The link's page over HTTP: pending, then refused once revoked.
    const path = new URL(url).pathname;
    expect(await (await request.get(path)).text()).toContain('Join Acme Ops on Tripline');
    expect((await request.delete(`/api/v1/factories/acme/invitations/${invitation.id}`, { headers: bearer(tokens.admin) })).status()).toBe(204);
    expect((await request.delete(`/api/v1/factories/acme/invitations/${invitation.id}`, { headers: bearer(tokens.admin) })).status()).toBe(404);
    expect(await (await request.get(path)).text()).toContain('This invitation to Acme Ops was revoked');

    const member = await request.post('/api/v1/factories/acme/invitations', { headers: bearer(tokens.admin), data: { email: 'viewer@acme.test', role: 'admin' } });
    expect(member.status()).toBe(409);
    const invalid = await request.post('/api/v1/factories/acme/invitations', { headers: bearer(tokens.admin), data: { email: 'nope', role: 'owner' } });
    expect(invalid.status()).toBe(422);
    expect(Object.keys((await invalid.json()).error.fields).sort()).toEqual(['email', 'role']);
  });

  test('/signup on a default install says sign-up is by invitation', async ({ request }) => {
    const page = await request.get('/signup');
    expect(await page.text()).toContain('Sign-up is by invitation');
  });
});
