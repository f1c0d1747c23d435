import { signIn } from '../browser/helpers';
import { bearer, expect, test } from '../fixtures/api';
import { seedUsers } from '../fixtures/seed';
import { rememberSecrets } from '../fixtures/secrets';
import { cli } from '../servers';

// Notion's verification token is shown to an admin once, on the webhook's
// page. The page must only ever show the token the handshake delivered: once a
// definition file points the webhook's secretName at another team secret, the
// reveal refuses instead of reading that write-only secret back. Over HTTP in
// Chromium, against the PostgreSQL server, through the real apply: a factory of
// its own is switched to managed with the CLI, and its definition file edited.

test('the Notion token reveal refuses once a definition file points the webhook at another team secret, and never shows that secret', async ({ page, request, tokens }) => {
  const admin = seedUsers.find((user) => user.key === 'admin')!;
  const run = Date.now().toString(36);
  const slug = `reveal-${run}`;
  const base = `/api/v1/factories/${slug}`;
  const otherValue = `write-only-value-${run}`;
  const token = `secret_notionRevealTest${run}`;
  rememberSecrets(otherValue, token);
  const auth = { headers: bearer(tokens.admin) };

  expect((await request.post('/api/v1/factories', { ...auth, data: { name: 'Reveal', slug } })).status()).toBe(201);
  expect((await request.put(`${base}/secrets/OTHER`, { ...auth, data: { value: otherValue } })).status()).toBe(201);
  const created = await request.post(`${base}/webhooks`, { ...auth, data: { name: 'notion', authMode: 'signature', signatureScheme: 'notion' } });
  expect(created.status(), await created.text()).toBe(201);
  const { webhook, ingressUrl } = await created.json();
  expect((await request.post(new URL(ingressUrl).pathname, { data: { verification_token: token } })).status()).toBe(200);

  // The factory becomes managed; its file for the webhook now names OTHER.
  cli(JSON.parse(process.env.E2E_API_POSTGRES_CLI_ENV!), ['factory', 'use-managed', '--factory', slug]);
  const { files } = await (await request.get(`${base}/definitions`, auth)).json();
  const file = files['webhooks/notion.yaml'] as string;
  expect(file).toMatch(/^secretName: /m);
  const applied = await request.post(`${base}/definitions/apply`, { ...auth, data: { files: { 'webhooks/notion.yaml': file.replace(/^secretName: .*$/m, 'secretName: OTHER') } } });
  expect(applied.status(), await applied.text()).toBe(200);

  await signIn(page, admin.email, admin.password);
  await page.goto(`/f/${slug}/automations/webhooks/${webhook.uid}`);
  const alert = page.getByRole('status').filter({ hasText: 'Notion sent its verification token' });
  await alert.getByRole('button', { name: 'Show the token once' }).click();
  await expect(page.getByText('The webhook’s secret is no longer the token Notion’s handshake delivered, so it is not shown.')).toBeVisible();
  const html = await page.content();
  expect(html).not.toContain(otherValue);
  expect(html).not.toContain(token);
});
