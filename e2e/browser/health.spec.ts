import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { startReceiver, type Receiver } from '../fixtures/receiver';
import { rememberSecrets } from '../fixtures/secrets';
import { completeFirstRunIfNeeded, createWebhook, screenshot, setUpFactory } from './helpers';

// Webhook health and the delivery chart in the dashboard, at desktop
// (1440 px) and phone (390 px) widths: real requests to each webhook's
// ingress URL put them in different states; the Webhooks list shows each
// state with the last accepted delivery, and the webhook page's chart
// counts exactly what was sent. Then the expected-interval form, and the
// Notifications section of Settings with a local receiver.

const admin = { name: 'Hal Admin', email: 'hal@health.test', password: 'hal password 1234' };
const viewer = { name: 'Val Viewer', email: 'val@health.test', password: 'val password 1234' };
const factory = { name: 'Health Desk', slug: 'health-desk' };
const webhooksPath = `/f/${factory.slug}/automations/webhooks`;

type Hook = { url: string; secret: string; uid: string };

const post = (request: APIRequestContext, hook: Hook, body: string, token = hook.secret) =>
  request.post(hook.url, { data: Buffer.from(body), headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, failOnStatusCode: false });

const healthOf = (page: Page, name: string) => page.getByRole('row').filter({ hasText: name }).locator('[data-health]');

test.describe.serial('webhook health and the delivery chart', () => {
  let page: Page;
  let receiver: Receiver;
  const hooks: Record<string, Hook> = {};

  test.beforeAll(async ({ browser }) => {
    receiver = await startReceiver();
    await completeFirstRunIfNeeded(browser);
    page = await setUpFactory(browser, { admin, factory, member: viewer, role: 'viewer', contextOptions: { viewport: { width: 1440, height: 900 } } });
    for (const name of ['orders', 'billing', 'imports', 'bursty', 'nightly']) hooks[name] = await createWebhook(page, factory.slug, name);
  });
  test.afterAll(async () => {
    await page?.context().close();
    await receiver?.close();
  });

  test('the Webhooks list shows each webhook’s health and last accepted delivery, at 1440 and 390 px', async ({ request }) => {
    // orders: accepted deliveries (and one stray wrong token): Healthy.
    for (let i = 0; i < 3; i++) expect((await post(request, hooks.orders!, `{"order":${i}}`)).status()).toBe(202);
    expect((await post(request, hooks.orders!, '{"x":1}', 'wrong')).status()).toBe(401);
    // billing: only wrong credentials: Failing auth.
    for (let i = 0; i < 2; i++) expect((await post(request, hooks.billing!, '{"x":1}', 'rotated-away')).status()).toBe(401);
    // imports: an accepted delivery and a body that is not JSON: Rejecting payloads.
    expect((await post(request, hooks.imports!, '{"rows":10}')).status()).toBe(202);
    expect((await post(request, hooks.imports!, 'rows=10')).status()).toBe(400);
    // bursty: past the delivery rate limit (60 a minute): Rate limited.
    const statuses = await Promise.all(Array.from({ length: 80 }, (_, i) => post(request, hooks.bursty!, `{"n":${i}}`).then((r) => r.status())));
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    // nightly: nothing yet: New.

    await page.goto(webhooksPath);
    await expect(async () => {
      await page.reload();
      await expect(healthOf(page, 'bursty')).toHaveText('Rate limited', { timeout: budget(1_000) });
    }).toPass({ timeout: budget(20_000) });
    await expect(healthOf(page, 'orders')).toHaveText('Healthy');
    await expect(healthOf(page, 'billing')).toHaveText('Failing auth');
    await expect(healthOf(page, 'imports')).toHaveText('Rejecting payloads');
    await expect(healthOf(page, 'nightly')).toHaveText('New');
    await expect(page.getByRole('row').filter({ hasText: 'orders' })).toContainText('Last accepted');
    await expect(page.getByRole('row').filter({ hasText: 'billing' })).toContainText('Nothing accepted yet');
    await screenshot(page, 'health-list-1440');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect(healthOf(page, 'billing')).toHaveText('Failing auth');
    await screenshot(page, 'health-list-390');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  test('the webhook page charts the deliveries with the right counts per status, for 24 hours and 7 days', async () => {
    await page.goto(`${webhooksPath}/${hooks.orders!.uid}`);
    const card = page.getByRole('region', { name: 'Health and deliveries' });
    await expect(card.getByText('Healthy', { exact: true })).toBeVisible();
    await expect(card.locator('[data-status="accepted"]')).toHaveText('3');
    await expect(card.locator('[data-status="rejected_auth"]')).toHaveText('1');
    await expect(card.locator('[data-status="total"]')).toHaveText('4');
    await expect(card.getByRole('img', { name: /4 requests from .*Accepted 3, Rejected \(auth\) 1/ })).toBeVisible();
    // One stacked bar (the current hour) with an accepted and a rejected segment.
    await expect(card.locator('svg rect')).toHaveCount(2);
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'health-chart-1440');

    await card.getByRole('link', { name: 'Last 7 days' }).click();
    await expect(page).toHaveURL(/window=7d/);
    await expect(card.getByRole('link', { name: 'Last 7 days' })).toHaveAttribute('aria-current', 'true');
    await expect(card.locator('[data-status="accepted"]')).toHaveText('3');
    await expect(card.getByText('Requests per 6 hours', { exact: false })).toBeVisible();

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${webhooksPath}/${hooks.orders!.uid}`);
    await expect(card.locator('[data-status="total"]')).toHaveText('4');
    const box = await card.locator('svg').boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    await screenshot(page, 'health-chart-390');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  test('the expected interval validates next to the field, and is shown once saved', async () => {
    await page.goto(`${webhooksPath}/${hooks.nightly!.uid}`);
    const form = page.getByRole('form', { name: 'Expected interval' });
    await form.getByLabel('Expected interval').fill('0');
    await form.getByRole('button', { name: 'Save interval' }).click();
    await expect(form.getByText('Use between 1 minute and 30 days')).toBeVisible();
    await form.getByLabel('Expected interval').fill('26');
    await form.getByLabel('Unit').selectOption('hours');
    await form.getByRole('button', { name: 'Save interval' }).click();
    await expect(page.getByText('Expected at least every 26 h')).toBeVisible();
  });

  test('Settings: add a signed destination (secret shown once), send a test notification, see it in the log', async () => {
    await page.goto(`/f/${factory.slug}/settings`);
    const form = page.getByRole('form', { name: 'Add destination' });
    await form.getByLabel('Name').fill('on-call');
    await form.getByLabel('URL').fill('ftp://example.com/hook');
    await form.getByRole('button', { name: 'Add destination' }).click();
    await expect(form.getByText('Enter an https:// URL')).toBeVisible();
    await form.getByLabel('URL').fill(`${receiver.url}/tripline`);
    await form.getByRole('button', { name: 'Add destination' }).click();
    const secret = page.getByLabel('Signing secret');
    await expect(secret).toHaveValue(/^whsec_/);
    rememberSecrets(await secret.inputValue());
    await page.getByRole('button', { name: 'Send test notification to on-call' }).click();
    await expect.poll(() => receiver.received.filter((r) => r.json.type === 'notification.test').length, { timeout: budget(15_000) }).toBe(1);
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole('row').filter({ hasText: 'notification.test' })).toContainText('Sent', { timeout: budget(1_000) });
    }).toPass({ timeout: budget(15_000) });
    // Shown once: gone after the reload.
    await expect(page.getByLabel('Signing secret')).toHaveCount(0);

    // Disabled: the badge says so, no test can be sent, and it stays so after a reload; then enabled again.
    const destinations = page.getByRole('list', { name: 'Destinations' });
    const enabled = destinations.getByRole('switch', { name: 'Enabled: on-call' });
    const sendTest = page.getByRole('button', { name: 'Send test notification to on-call' });
    await enabled.click();
    await expect(destinations.getByText('Disabled', { exact: true })).toBeVisible();
    await expect(sendTest).toBeDisabled();
    await page.reload();
    await expect(enabled).toHaveAttribute('aria-checked', 'false');
    await expect(destinations).toContainText('Receives nothing; queued notifications were marked failed.');
    await screenshot(page, 'notifications-disabled-1440');
    await enabled.click();
    await expect(destinations.getByText('Disabled', { exact: true })).toHaveCount(0);
    await expect(sendTest).toBeEnabled();
    await screenshot(page, 'notifications-settings-1440');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'notifications-settings-390');
  });
});
