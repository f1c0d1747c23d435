import fs from 'node:fs';
import pg from 'pg';
import { bearer, expect, serverLogFile, test } from '../fixtures/api';

// The webhook and team-secret management API over real HTTP, on each API
// server (embedded PGlite and PostgreSQL).

const base = '/api/v1/factories/acme';
const run = Date.now().toString(36);
const name = (stem: string) => `${stem}-${run}`;
const secretsSeen: string[] = [];

test.describe.configure({ mode: 'serial' });

test('serves its OpenAPI description', async ({ request }) => {
  const response = await request.get('/api/v1/openapi.json');
  expect(response.status()).toBe(200);
  const doc = await response.json();
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining([
      '/factories/{factory}/webhooks',
      '/factories/{factory}/webhooks/{uid}',
      '/factories/{factory}/webhooks/{uid}/rotate-secret',
      '/factories/{factory}/webhooks/{uid}/provider-secret',
      '/factories/{factory}/webhooks/{uid}/fields',
      '/factories/{factory}/webhooks/{uid}/deliveries/stream',
      '/factories/{factory}/secrets',
      '/factories/{factory}/secrets/{name}',
    ]),
  );
});

test('creates a bearer-token webhook; the secret is returned once and never listed', async ({ request, tokens }) => {
  const created = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name('ci') } });
  expect(created.status()).toBe(201);
  const body = await created.json();
  secretsSeen.push(body.secret);
  expect(body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(body.webhook).toMatchObject({ name: name('ci'), authMode: 'token', signatureScheme: null, enabled: true, deliveryIdHeader: null });
  expect(body.ingressUrl).toMatch(new RegExp(`/webhooks/w/${body.webhook.uid}$`));
  expect(body.webhook.ingressUrl).toBe(body.ingressUrl);

  const list = await request.get(`${base}/webhooks`, { headers: bearer(tokens.viewer) });
  expect(list.status()).toBe(200);
  const text = await list.text();
  expect(text).not.toContain(body.secret);
  expect(JSON.parse(text).webhooks.map((w: { uid: string }) => w.uid)).toContain(body.webhook.uid);
  for (const key of ['uid', 'name', 'authMode', 'signatureScheme', 'secretName', 'deliveryIdHeader', 'enabled', 'ingressUrl', 'createdAt']) {
    expect(JSON.parse(text).webhooks[0]).toHaveProperty(key);
  }

  const one = await request.get(`${base}/webhooks/${body.webhook.uid}`, { headers: bearer(tokens.editor) });
  expect((await one.json()).webhook.uid).toBe(body.webhook.uid);
});

test('a url_token webhook returns the real URL once, then {token}', async ({ request, tokens }) => {
  const created = await request.post(`${base}/webhooks`, {
    headers: bearer(tokens.admin),
    data: { name: name('cron'), authMode: 'url_token', deliveryIdHeader: 'X-Job-Run' },
  });
  const body = await created.json();
  secretsSeen.push(body.secret);
  expect(body.ingressUrl).toMatch(new RegExp(`/webhooks/w/${body.webhook.uid}/${body.secret}$`));
  expect(body.webhook.deliveryIdHeader).toBe('x-job-run');
  const one = await (await request.get(`${base}/webhooks/${body.webhook.uid}`, { headers: bearer(tokens.admin) })).json();
  expect(one.webhook.ingressUrl).toMatch(/\/\{token\}$/);
});

test('provider-issued secrets: awaiting, then the second step; rotation is refused for them', async ({ request, tokens }) => {
  const created = await request.post(`${base}/webhooks`, {
    headers: bearer(tokens.admin),
    data: { name: name('stripe'), authMode: 'signature', signatureScheme: 'stripe' },
  });
  expect(created.status()).toBe(201);
  const body = await created.json();
  expect(body.secret).toBeNull();
  expect(body.webhook.state).toBe('awaiting_secret');
  const uid = body.webhook.uid;

  const rotate = await request.post(`${base}/webhooks/${uid}/rotate-secret`, { headers: bearer(tokens.admin) });
  expect(rotate.status()).toBe(409);

  const empty = await request.put(`${base}/webhooks/${uid}/provider-secret`, { headers: bearer(tokens.admin), data: { secret: '' } });
  expect(empty.status()).toBe(422);
  expect((await empty.json()).error.fields.secret).toBeTruthy();

  secretsSeen.push('whsec_issued_by_stripe_e2e');
  const set = await request.put(`${base}/webhooks/${uid}/provider-secret`, { headers: bearer(tokens.admin), data: { secret: 'whsec_issued_by_stripe_e2e' } });
  expect(set.status()).toBe(200);
  expect((await set.json()).webhook.state).toBe('enabled');

  // A change refused on one field (a signature webhook's event type comes from its scheme) changes none: still enabled.
  const half = await request.patch(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin), data: { enabled: false, eventTypeHeader: 'X-Kind' } });
  expect(half.status()).toBe(422);
  expect(Object.keys((await half.json()).error.fields)).toEqual(['eventTypeHeader']);
  expect((await (await request.get(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin) })).json()).webhook.enabled).toBe(true);
});

test('Standard Webhooks with a blank secret gets a generated whsec_ secret', async ({ request, tokens }) => {
  const created = await request.post(`${base}/webhooks`, {
    headers: bearer(tokens.admin),
    data: { name: name('svix'), authMode: 'signature', signatureScheme: 'standard-webhooks', providerSecret: '' },
  });
  const body = await created.json();
  secretsSeen.push(body.secret);
  expect(body.secret).toMatch(/^whsec_/);
});

test('rotate, disable, enable and delete', async ({ request, tokens }) => {
  const created = await (await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name('life') } })).json();
  secretsSeen.push(created.secret);
  const uid = created.webhook.uid;

  const rotated = await request.post(`${base}/webhooks/${uid}/rotate-secret`, { headers: bearer(tokens.admin) });
  expect(rotated.status()).toBe(200);
  const rotation = await rotated.json();
  secretsSeen.push(rotation.secret);
  expect(rotation.secret).not.toBe(created.secret);
  expect(rotation.ingressUrl).toContain(uid);

  const off = await request.patch(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin), data: { enabled: false } });
  expect((await off.json()).webhook).toMatchObject({ enabled: false, state: 'disabled' });
  const on = await request.patch(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin), data: { enabled: true } });
  expect((await on.json()).webhook).toMatchObject({ enabled: true, state: 'enabled' });

  for (const data of [{ enabled: 'no' }, {}, { enabled: true, name: 'rename' }]) {
    const invalid = await request.patch(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin), data });
    expect(invalid.status(), JSON.stringify(data)).toBe(422);
  }

  expect((await request.delete(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin) })).status()).toBe(204);
  expect((await request.get(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin) })).status()).toBe(404);
  expect((await request.delete(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin) })).status()).toBe(404);
});

test('errors: 400 bad JSON, 422 invalid fields, 409 duplicate name', async ({ request, tokens }) => {
  const badJson = await request.post(`${base}/webhooks`, {
    headers: { ...bearer(tokens.admin), 'Content-Type': 'application/json' },
    data: Buffer.from('{"name": '),
  });
  expect(badJson.status()).toBe(400);
  expect((await badJson.json()).error.code).toBe('bad_request');

  const invalid = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: 'Not Valid', authMode: 'carrier-pigeon' } });
  expect(invalid.status()).toBe(422);
  const error = (await invalid.json()).error;
  expect(error.code).toBe('validation_failed');
  expect(Object.keys(error.fields)).toEqual(expect.arrayContaining(['name', 'authMode']));

  const missingScheme = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name('nosig'), authMode: 'signature' } });
  expect((await missingScheme.json()).error.fields.signatureScheme).toMatch(/Choose the provider/);

  const duplicate = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name('ci') } });
  expect(duplicate.status()).toBe(409);
  expect((await duplicate.json()).error.fields.name).toMatch(/already exists/);
});

test('roles: viewers and editors read but cannot manage; outsiders see 404', async ({ request, tokens }) => {
  const [first] = (await (await request.get(`${base}/webhooks`, { headers: bearer(tokens.admin) })).json()).webhooks;
  const uid = first.uid;
  for (const token of [tokens.viewer, tokens.editor]) {
    const attempts = [
      request.post(`${base}/webhooks`, { headers: bearer(token), data: { name: name('nope') } }),
      request.patch(`${base}/webhooks/${uid}`, { headers: bearer(token), data: { enabled: false } }),
      request.delete(`${base}/webhooks/${uid}`, { headers: bearer(token) }),
      request.post(`${base}/webhooks/${uid}/rotate-secret`, { headers: bearer(token) }),
      request.put(`${base}/webhooks/${uid}/provider-secret`, { headers: bearer(token), data: { secret: 'x' } }),
      request.get(`${base}/secrets`, { headers: bearer(token) }),
      request.put(`${base}/secrets/NOPE`, { headers: bearer(token), data: { value: 'x' } }),
      request.delete(`${base}/secrets/NOPE`, { headers: bearer(token) }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status(), response.url()).toBe(403);
      expect((await response.json()).error.code).toBe('forbidden');
    }
  }
  expect((await request.get(`${base}/webhooks`, { headers: bearer(tokens.outsider) })).status()).toBe(404);
  expect((await request.get(`${base}/webhooks/${uid}`, { headers: bearer(tokens.outsider) })).status()).toBe(404);
  expect((await request.get('/api/v1/factories/globex/webhooks', { headers: bearer(tokens.admin) })).status()).toBe(404);
  expect((await request.get('/api/v1/factories/no-such-factory/webhooks', { headers: bearer(tokens.admin) })).status()).toBe(404);
  expect((await request.get(`${base}/webhooks/wh_doesnotexist`, { headers: bearer(tokens.admin) })).status()).toBe(404);
  expect((await request.get(`${base}/webhooks`)).status()).toBe(401);
  expect((await request.post(`${base}/webhooks`, { data: { name: 'x' } })).status()).toBe(401);
});

test('team secrets: put, list without values, refuse deleting one in use, delete', async ({ request, tokens }) => {
  const secret = `SECRET_${run.toUpperCase()}`;
  secretsSeen.push('first-value-e2e', 'second-value-e2e');
  const created = await request.put(`${base}/secrets/${secret}`, { headers: bearer(tokens.admin), data: { value: 'first-value-e2e' } });
  expect(created.status()).toBe(201);
  const replaced = await request.put(`${base}/secrets/${secret}`, { headers: bearer(tokens.admin), data: { value: 'second-value-e2e' } });
  expect(replaced.status()).toBe(200);
  expect((await replaced.json()).secret.version).toBe(2);

  const list = await request.get(`${base}/secrets`, { headers: bearer(tokens.admin) });
  const text = await list.text();
  expect(text).not.toContain('value-e2e');
  expect(JSON.parse(text).secrets.map((s: { name: string }) => s.name)).toContain(secret);

  const badName = await request.put(`${base}/secrets/bad-name`, { headers: bearer(tokens.admin), data: { value: 'x' } });
  expect(badName.status()).toBe(422);
  expect(Object.keys((await badName.json()).error.fields)).toEqual(['name']);
  expect((await request.put(`${base}/secrets/${secret}`, { headers: bearer(tokens.admin), data: {} })).status()).toBe(422);

  const user = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name('uses-secret'), secretName: secret } });
  expect((await user.json()).secret).toBeNull();
  const refused = await request.delete(`${base}/secrets/${secret}`, { headers: bearer(tokens.admin) });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.message).toMatch(/is used by the webhook/);

  const unused = `UNUSED_${run.toUpperCase()}`;
  await request.put(`${base}/secrets/${unused}`, { headers: bearer(tokens.admin), data: { value: 'x' } });
  expect((await request.delete(`${base}/secrets/${unused}`, { headers: bearer(tokens.admin) })).status()).toBe(204);
  expect((await request.delete(`${base}/secrets/${unused}`, { headers: bearer(tokens.admin) })).status()).toBe(404);
});

test('the 21st webhook of a factory is refused with a clear message', async ({ request, tokens }) => {
  const { webhooks } = await (await request.get(`${base}/webhooks`, { headers: bearer(tokens.admin) })).json();
  const filled: string[] = [];
  for (let i = webhooks.length; i < 20; i++) {
    const response = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name(`fill-${i}`) } });
    expect(response.status()).toBe(201);
    const body = await response.json();
    secretsSeen.push(body.secret);
    filled.push(body.webhook.uid);
  }
  const refused = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name('one-too-many') } });
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error.message).toBe('A factory can have at most 20 webhooks. Delete one you no longer use to create another.');
  // Make room again for the specs that run after this one on the same server.
  for (const uid of filled) await request.delete(`${base}/webhooks/${uid}`, { headers: bearer(tokens.admin) });
  const after = await request.post(`${base}/webhooks`, { headers: bearer(tokens.admin), data: { name: name('room-again') } });
  expect(after.status()).toBe(201);
  await request.delete(`${base}/webhooks/${(await after.json()).webhook.uid}`, { headers: bearer(tokens.admin) });
});

test('no secret appears in the server log or, on PostgreSQL, anywhere in the database', async ({}, testInfo) => {
  expect(secretsSeen.length).toBeGreaterThan(20);
  const log = fs.readFileSync(serverLogFile(testInfo.project.name), 'utf8');
  for (const secret of secretsSeen) expect(log.includes(secret)).toBe(false);

  if (testInfo.project.name === 'api-postgres') {
    const client = new pg.Client({ connectionString: process.env.E2E_API_POSTGRES_DATABASE_URL });
    await client.connect();
    try {
      const { rows: tables } = await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      let dump = '';
      for (const { table_name } of tables) {
        const { rows } = await client.query(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
        dump += rows.map((r) => r.row).join('\n');
      }
      expect(dump).toContain('valueEncrypted');
      for (const secret of secretsSeen) expect(dump.includes(secret)).toBe(false);
    } finally {
      await client.end();
    }
  }
});
