import type { Browser, Page } from '@playwright/test';
import pg from 'pg';
import { budget } from '../../scripts/speed.mjs';
import { callServerAction, createApiToken, signIn } from '../browser/helpers';
import { bearer, expect, test } from '../fixtures/api';
import { createWebhook, deleteCreatedWebhooks } from '../fixtures/ingress';
import { openStream } from '../fixtures/listen';
import { scrapeMetrics } from '../fixtures/metrics';
import { rememberSecrets } from '../fixtures/secrets';
import { seedUsers, type SeedUser } from '../fixtures/seed';

// Issue 49 over real HTTP, on each API server: the Event type header refuses
// credential headers wherever it is written and is ignored when one was
// stored before; event types with invisible formatting characters are stored
// as none; open log streams are bounded per account and per factory, and API
// tokens per account.

const base = '/api/v1/factories/acme';

test.afterEach(async ({ request, tokens }) => {
  await deleteCreatedWebhooks(request, tokens.admin);
});

const seeded = (key: SeedUser['key']) => seedUsers.find((user) => user.key === key)!;

/** A page of its own, signed in as a seeded user (contexts made here do not inherit the project's baseURL). */
async function signedIn(browser: Browser, baseURL: string, key: SeedUser['key']): Promise<Page> {
  const page = await (await browser.newContext({ baseURL })).newPage();
  await signIn(page, seeded(key).email, seeded(key).password);
  return page;
}

test('the Event type header refuses credential headers in the API, the dashboard and definition files; a stored one is no longer read', async ({ request, tokens, browser, baseURL }, testInfo) => {
  const admin = bearer(tokens.admin);
  const refusal = /^"authorization" cannot be the event type header: its name suggests a credential .*viewers included/;

  const created = await request.post(`${base}/webhooks`, { headers: admin, data: { name: `leak-${Date.now().toString(36)}`, eventTypeHeader: 'Authorization' } });
  expect(created.status()).toBe(422);
  expect((await created.json()).error.fields).toEqual({ eventTypeHeader: expect.stringMatching(refusal) });

  const hook = await createWebhook(request, tokens.admin, { name: 'typed', eventTypeHeader: 'X-Job-Kind' });
  for (const header of ['Authorization', 'Cookie', 'X-Api-Key', 'X-Hub-Signature-256']) {
    const patched = await request.patch(`${base}/webhooks/${hook.uid}`, { headers: admin, data: { eventTypeHeader: header } });
    expect(patched.status(), header).toBe(422);
    expect((await patched.json()).error.fields, header).toEqual({ eventTypeHeader: expect.stringContaining('cannot be the event type header') });
  }

  // Definition files: the plan names the file, the key and the reason.
  const plan = await request.post(`${base}/definitions/plan`, {
    headers: admin,
    data: { files: { 'webhooks/typed.yaml': 'secretName: TYPED_TOKEN\neventTypeHeader: Authorization\n' } },
  });
  expect(plan.status()).toBe(200);
  expect((await plan.json()).plan).toMatchObject({
    valid: false,
    problems: expect.arrayContaining([expect.objectContaining({ file: 'webhooks/typed.yaml', key: 'eventTypeHeader', message: expect.stringMatching(refusal) })]),
  });

  // The dashboard's actions, called as its forms call them.
  const page = await signedIn(browser, baseURL!, 'admin');
  try {
    const pagePath = `/f/acme/automations/webhooks/${hook.uid}`;
    for (const answer of [
      await callServerAction(page, pagePath, 'setEventTypeSettingAction', ['acme', { uid: hook.uid, eventTypeHeader: 'Authorization', eventTypePath: '' }]),
      await callServerAction(page, pagePath, 'createWebhookAction', ['acme', { name: `leak-${Date.now().toString(36)}`, authMode: 'token', eventTypeHeader: 'Authorization' }]),
    ]) {
      expect(answer).toContain('"ok":false');
      expect(answer).toContain('cannot be the event type header');
    }
  } finally {
    await page.context().close();
  }
  expect((await (await request.get(`${base}/webhooks/${hook.uid}`, { headers: admin })).json()).webhook).toMatchObject({ eventTypeHeader: 'x-job-kind' });

  // A setting stored before the refusal existed, written straight into PostgreSQL (the row's trigger
  // tells the server's webhook cache): the server stops reading it, so a viewer never sees the bearer token.
  if (testInfo.project.name !== 'api-postgres') return;
  const client = new pg.Client({ connectionString: process.env.E2E_API_POSTGRES_DATABASE_URL });
  await client.connect();
  try {
    expect((await client.query(`UPDATE "Webhook" SET "eventTypeHeader" = 'authorization' WHERE "uid" = $1`, [hook.uid])).rowCount).toBe(1);
  } finally {
    await client.end();
  }
  const newestType = async () => {
    const response = await request.get(`${base}/webhooks/${hook.uid}/deliveries?limit=1`, { headers: bearer(tokens.viewer) });
    expect(response.status()).toBe(200);
    return (await response.json()).deliveries[0].eventType as string | null;
  };
  // Until the cache drops the old setting a delivery's type is "stale"; once it has, none (before the fix: "Bearer <secret>").
  await expect
    .poll(
      async () => {
        const sent = await request.post(hook.url, { data: { n: 1 }, headers: { Authorization: `Bearer ${hook.secret}`, 'X-Job-Kind': 'stale' } });
        expect(sent.status()).toBe(202);
        return newestType();
      },
      { timeout: budget(15_000) },
    )
    .toBeNull();
  const log = await request.get(`${base}/webhooks/${hook.uid}/deliveries`, { headers: bearer(tokens.viewer) });
  expect(await log.text()).not.toContain(hook.secret!);
});

test('an event type with a bidirectional or zero-width character is stored as none; a path with one is refused', async ({ request, tokens }) => {
  const admin = bearer(tokens.admin);
  const hook = await createWebhook(request, tokens.admin, { name: 'invisible', authMode: 'url_token', eventTypePath: 'kind' });
  const newestType = async (data: unknown) => {
    expect((await request.post(hook.url, { data })).status()).toBe(202);
    const response = await request.get(`${base}/webhooks/${hook.uid}/deliveries?limit=1`, { headers: bearer(tokens.viewer) });
    return (await response.json()).deliveries[0].eventType as string | null;
  };
  expect(await newestType({ kind: 'invoice.paid' })).toBe('invoice.paid');
  // U+202E shows this one as "invoice.paid"; U+200B makes a "push" that is not push; U+2066-2069 isolate.
  expect(await newestType({ kind: 'invoice.\u202Ediap' })).toBeNull();
  expect(await newestType({ kind: 'pu\u200Bsh' })).toBeNull();
  expect(await newestType({ kind: '\u2066push\u2069' })).toBeNull();

  const patched = await request.patch(`${base}/webhooks/${hook.uid}`, { headers: admin, data: { eventTypePath: 'data.\u202Ekind' } });
  expect(patched.status()).toBe(422);
  expect((await patched.json()).error.fields).toEqual({ eventTypePath: 'Use printable characters only' });
});

/** A stream request that must be refused: its status, Retry-After and message. One that opens instead is closed at once. */
async function refusedStream(url: string, token: string) {
  const { response, close } = await openStream(url, token);
  try {
    const message = response.status === 429 ? ((await response.json()) as { error: { message: string } }).error.message : '';
    return { status: response.status, retryAfter: response.headers.get('retry-after'), message };
  } finally {
    await close();
  }
}

test('open log streams are bounded per account (10, whatever its tokens) and per factory (25, whatever its members)', async ({ request, tokens, browser, baseURL }) => {
  test.setTimeout(budget(120_000));
  // Streams other specs opened on this server have all ended: the counts below start at zero.
  await expect.poll(async () => (await scrapeMetrics(request, baseURL)).get('tripline_log_streams_open') ?? 0, { timeout: budget(15_000) }).toBe(0);

  // A second and third token for the editor, a second for the admin and the viewer, made on the Settings page.
  const extra: Record<'admin' | 'editor' | 'viewer', string[]> = { admin: [], editor: [], viewer: [] };
  for (const [key, count] of [['editor', 2], ['admin', 1], ['viewer', 1]] as const) {
    const page = await signedIn(browser, baseURL!, key);
    try {
      for (let i = 0; i < count; i++) extra[key].push(await createApiToken(page, `hardening streams ${i + 2}`));
    } finally {
      await page.context().close();
    }
  }

  const hook = await createWebhook(request, tokens.admin, { name: 'stream-bounds' });
  const url = `${baseURL}${base}/webhooks/${hook.uid}/deliveries/stream`;
  const open: Awaited<ReturnType<typeof openStream>>[] = [];
  const openFive = async (token: string) => {
    for (let i = 0; i < 5; i++) {
      const stream = await openStream(url, token);
      open.push(stream);
      expect(stream.response.status).toBe(200);
    }
  };
  try {
    // The editor: five on each of two tokens; a third token is refused for the account.
    await openFive(tokens.editor);
    await openFive(extra.editor[0]!);
    expect(await refusedStream(url, extra.editor[1]!)).toEqual({
      status: 429,
      retryAfter: '5',
      message:
        'Your account already has 10 open streams of delivery logs on this server, counting all its API tokens and browser sessions, the most one account may have: close one first',
    });

    // The admin's ten and the viewer's five fill the factory: the viewer's second token is refused for the factory.
    await openFive(tokens.admin);
    await openFive(extra.admin[0]!);
    await openFive(tokens.viewer);
    expect(await refusedStream(url, extra.viewer[0]!)).toEqual({
      status: 429,
      retryAfter: '30',
      message:
        'The factory Acme Ops already has 25 open streams of delivery logs on this server, counting all its members, the most one factory may have: close one, or try again later',
    });
    expect((await scrapeMetrics(request, baseURL)).get('tripline_log_streams_open')).toBe(25);

    // A stream closed frees its slot for any member.
    await open.pop()!.close();
    await expect.poll(async () => (await refusedStream(url, extra.viewer[0]!)).status, { timeout: budget(15_000) }).toBe(200);
  } finally {
    for (const stream of open) await stream.close();
  }
});

test('an account holds at most 25 API tokens: the 26th is refused on the Settings page, saying what to do', async ({ browser, baseURL }) => {
  test.setTimeout(budget(120_000));
  // The loner (no factory): the seed gave it one token; 24 more through the Settings page's action.
  const page = await signedIn(browser, baseURL!, 'loner');
  try {
    for (let i = 0; i < 24; i++) {
      const answer = await callServerAction(page, '/settings', 'createApiTokenAction', [{ name: `bound ${i}` }]);
      rememberSecrets(...(answer.match(/trl_[A-Za-z0-9_-]{43}/g) ?? []));
      expect(answer, `token ${i + 2}`).toContain('"ok":true');
    }
    await page.goto('/settings');
    await page.getByLabel('Token name').fill('one too many');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'This account already has 25 API tokens, the most one account may have.' })).toContainText(
      'Revoke one it no longer uses (Settings, API tokens) to create another.',
    );
    await expect(page.getByLabel('New API token')).toHaveCount(0);
  } finally {
    await page.context().close();
  }
});
