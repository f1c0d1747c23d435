import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { budget } from '../../scripts/speed.mjs';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks, rawPost, type Created } from '../fixtures/ingress';
import { deltas, scrapeMetrics } from '../fixtures/metrics';

// A webhook's IP allowlist over real HTTP, on embedded PGlite and on
// PostgreSQL. The client picks its own address on loopback (127.0.0.2 is
// allowed, 127.0.0.3 is not); the servers trust one proxy, 127.0.0.9, which
// is the address a real nginx connects from (proxy_bind) in the last tests.

test.describe.configure({ mode: 'serial' });
test.afterEach(({ request, tokens }) => deleteCreatedWebhooks(request, tokens.admin));

const ALLOWED = '127.0.0.2';
const OUTSIDE = '127.0.0.3';
const UNKNOWN_WEBHOOK = '/webhooks/w/wh_doesNotExist00000000000';

const body = () => Buffer.from(JSON.stringify({ allowlist: randomBytes(6).toString('hex') }));
const send = (baseURL: string, webhook: Created, from: string, headers: Record<string, string> = {}) =>
  rawPost(baseURL, webhook.url, { Authorization: `Bearer ${webhook.secret}`, 'Content-Type': 'application/json', ...headers }, body(), { localAddress: from });

async function allow(request: import('@playwright/test').APIRequestContext, admin: string, uid: string, ipAllowlist: string[]) {
  const response = await request.patch(`/api/v1/factories/acme/webhooks/${uid}`, { headers: bearer(admin), data: { ipAllowlist } });
  expect(response.status(), await response.text()).toBe(200);
  return (await response.json()).webhook as { ipAllowlist: string[] };
}

const entries = async (request: import('@playwright/test').APIRequestContext, admin: string, uid: string, status?: string) =>
  (await (await request.get(`/api/v1/factories/acme/webhooks/${uid}/deliveries${status ? `?status=${status}` : ''}`, { headers: bearer(admin) })).json())
    .deliveries as { status: string; detail: string | null }[];
/** The client address a refused entry names. */
const refusedFrom = (entry: { detail: string | null }) => /the client address (\S+) is outside/.exec(entry.detail ?? '')?.[1];

test('the API stores the list canonically and names a bad range, a long list or a wrong type', async ({ request, tokens }) => {
  const webhook = await createWebhook(request, tokens.admin, { name: 'allow-api', authMode: 'token' });
  expect((await allow(request, tokens.admin, webhook.uid, ['10.1.2.3/8', '2001:0DB8::1', '2001:db8::/32'])).ipAllowlist).toEqual(['10.0.0.0/8', '2001:db8::1', '2001:db8::/32']);

  const refused = async (data: unknown) => {
    const response = await request.patch(`/api/v1/factories/acme/webhooks/${webhook.uid}`, { headers: bearer(tokens.admin), data });
    expect(response.status()).toBe(422);
    return (await response.json()).error.fields as Record<string, string>;
  };
  expect(await refused({ ipAllowlist: ['10.0.0.0/8', '10.0.0.0/33'] })).toEqual({ 'ipAllowlist.1': '"10.0.0.0/33" has an invalid prefix length: an IPv4 range ends in /0 to /32' });
  expect(await refused({ ipAllowlist: ['fe80::1%eth0'] })).toEqual({ 'ipAllowlist.0': '"fe80::1%eth0" is not an IPv4 or IPv6 address' });
  expect(Object.keys(await refused({ ipAllowlist: Array.from({ length: 101 }, (_, i) => `10.0.${i}.0/24`) }))).toEqual(['ipAllowlist']);
  expect(Object.keys(await refused({ ipAllowlist: '10.0.0.0/8' }))).toEqual(['ipAllowlist']);
  // Nothing was saved by the refused changes; [] admits every address again.
  expect((await (await request.get(`/api/v1/factories/acme/webhooks/${webhook.uid}`, { headers: bearer(tokens.admin) })).json()).webhook.ipAllowlist).toHaveLength(3);
  expect((await allow(request, tokens.admin, webhook.uid, [])).ipAllowlist).toEqual([]);
  // An editor cannot change it (admins only).
  const member = await request.patch(`/api/v1/factories/acme/webhooks/${webhook.uid}`, { headers: bearer(tokens.editor), data: { ipAllowlist: ['10.0.0.0/8'] } });
  expect(member.status()).toBe(403);
});

test('without a proxy: the TCP peer decides, a forged X-Forwarded-For does not get in, and the refusal is an unknown webhook’s 404', async ({ request, tokens, baseURL }) => {
  const webhook = await createWebhook(request, tokens.admin, { name: 'allow-direct', authMode: 'token' });
  expect((await send(baseURL!, webhook, OUTSIDE)).status).toBe(202);
  await allow(request, tokens.admin, webhook.uid, [`${ALLOWED}/32`]);
  const before = await scrapeMetrics(request);

  expect((await send(baseURL!, webhook, ALLOWED)).status).toBe(202);
  const refused = await send(baseURL!, webhook, OUTSIDE, { 'X-Forwarded-For': ALLOWED });
  const unknown = await rawPost(baseURL!, UNKNOWN_WEBHOOK, { 'Content-Type': 'application/json' }, body(), { localAddress: OUTSIDE });
  expect(refused.status).toBe(404);
  expect({ body: refused.body, type: refused.headers['content-type'] }).toEqual({ body: unknown.body, type: unknown.headers['content-type'] });
  // Nothing else answers from outside either: a GET (from 127.0.0.1, also outside) gets the same 404, not 405.
  expect((await fetch(new URL(webhook.url, baseURL), { method: 'GET' })).status).toBe(404);

  const after = await scrapeMetrics(request);
  expect(deltas(before, after, ['tripline_ingress_requests_total{outcome="refused_address",auth_mode="token",scheme="none"}'])).toEqual({
    'tripline_ingress_requests_total{outcome="refused_address",auth_mode="token",scheme="none"}': 2,
  });
  const refusedEntries = await entries(request, tokens.admin, webhook.uid, 'refused_address');
  expect(refusedEntries.map(refusedFrom)).toEqual(['127.0.0.1', OUTSIDE]);
  expect(refusedEntries[1]).toMatchObject({ status: 'refused_address', detail: `the client address ${OUTSIDE} is outside the webhook's IP allowlist` });
});

test('IPv6 and IPv4-mapped ranges match the same clients', async ({ request, tokens, baseURL }) => {
  const webhook = await createWebhook(request, tokens.admin, { name: 'allow-v6', authMode: 'token' });
  const v6 = new URL(baseURL!);
  v6.hostname = '[::1]';
  await allow(request, tokens.admin, webhook.uid, ['::1/128']);
  expect((await send(v6.origin, webhook, '::1')).status).toBe(202);
  expect((await send(baseURL!, webhook, ALLOWED)).status).toBe(404);
  // An IPv4-mapped range admits the IPv4 client (a dual-stack socket sees it as ::ffff:127.0.0.2).
  await allow(request, tokens.admin, webhook.uid, ['::ffff:127.0.0.2/128']);
  expect((await send(baseURL!, webhook, ALLOWED)).status).toBe(202);
  expect((await send(baseURL!, webhook, OUTSIDE)).status).toBe(404);
  expect((await send(v6.origin, webhook, '::1')).status).toBe(404);
});

test('a refused flood does not spend the allowed sender’s delivery rate', async ({ request, tokens, baseURL }) => {
  const webhook = await createWebhook(request, tokens.admin, { name: 'allow-flood', authMode: 'token' });
  await allow(request, tokens.admin, webhook.uid, [`${ALLOWED}/32`]);
  // More than the 60 deliveries a minute a webhook may receive (TRIPLINE_DELIVERY_RATE_LIMIT's default).
  const flood = await Promise.all(Array.from({ length: 70 }, () => send(baseURL!, webhook, OUTSIDE)));
  expect(new Set(flood.map((response) => response.status))).toEqual(new Set([404]));
  for (let i = 0; i < 5; i++) expect((await send(baseURL!, webhook, ALLOWED)).status).toBe(202);
  // The flood's entries are under the budget of its address: a few, not 70.
  const refused = await entries(request, tokens.admin, webhook.uid, 'refused_address');
  expect(refused.length).toBeGreaterThan(0);
  expect(refused.length).toBeLessThan(70);
});

/** A real nginx in front of the server, connecting from 127.0.0.9 (the one trusted proxy), with docs/deploy.md's forwarding headers. */
function startNginx(upstream: string, port: number): { process: ChildProcess; url: string; stop: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-nginx-'));
  const config = `pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
daemon off;
master_process off;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream};
      proxy_bind 127.0.0.9;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), config);
  const child = spawn('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
  return {
    process: child,
    url: `http://127.0.0.1:${port}`,
    stop: () => {
      child.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const hasNginx = (() => {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('behind a trusted proxy: the right-most untrusted hop decides, whatever the client forged before it', async ({ request, tokens, baseURL }, testInfo) => {
  test.skip(!hasNginx && process.env.CI !== 'true', 'needs nginx (.ci/run installs it)');
  const port = Number(process.env.E2E_PORT_BASE ?? 3210) + (testInfo.project.name === 'api-postgres' ? 46 : 45);
  const nginx = startNginx(baseURL!, port);
  try {
    await expect
      .poll(async () => (await fetch(`${nginx.url}/readyz`).catch(() => null))?.status ?? 0, { timeout: budget(10_000) })
      .toBe(200);
    const webhook = await createWebhook(request, tokens.admin, { name: 'allow-proxy', authMode: 'token' });
    await allow(request, tokens.admin, webhook.uid, [`${ALLOWED}/32`]);
    // nginx adds the address it saw: the server trusts nginx's hop and takes the client's.
    expect((await send(nginx.url, webhook, ALLOWED)).status).toBe(202);
    expect((await send(nginx.url, webhook, OUTSIDE)).status).toBe(404);
    // A client outside the list naming an allowed address: nginx appends the real one, which decides.
    expect((await send(nginx.url, webhook, OUTSIDE, { 'X-Forwarded-For': ALLOWED })).status).toBe(404);
    // Directly, the same forged header from an untrusted peer counts for nothing either.
    expect((await send(baseURL!, webhook, OUTSIDE, { 'X-Forwarded-For': ALLOWED })).status).toBe(404);
    const refused = await entries(request, tokens.admin, webhook.uid, 'refused_address');
    expect(refused.map(refusedFrom)).toEqual([OUTSIDE, OUTSIDE, OUTSIDE]);
  } finally {
    nginx.stop();
  }
});

test('a trusted proxy that names no client is no client: an allowlist that covers the proxy refuses it', async ({ request, tokens, baseURL }) => {
  const webhook = await createWebhook(request, tokens.admin, { name: 'allow-proxy-silent', authMode: 'token' });
  // An allowlist that covers the proxy's own address (as a network's range often would).
  await allow(request, tokens.admin, webhook.uid, [`${ALLOWED}/32`, '127.0.0.9/32']);
  // The trusted proxy's address, without X-Forwarded-For or with a hop that is not an address: unknown, refused.
  expect((await send(baseURL!, webhook, '127.0.0.9')).status).toBe(404);
  expect((await send(baseURL!, webhook, '127.0.0.9', { 'X-Forwarded-For': 'not-an-address' })).status).toBe(404);
  // With the client it forwards for: that client decides.
  expect((await send(baseURL!, webhook, '127.0.0.9', { 'X-Forwarded-For': ALLOWED })).status).toBe(202);
  expect((await entries(request, tokens.admin, webhook.uid, 'refused_address')).map((entry) => entry.detail)).toHaveLength(2);
});
