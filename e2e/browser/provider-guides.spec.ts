import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { expect, test, type Page, type Request } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { screenshot, shotsDir, useFactoryPage } from './helpers';

// Provider setup guides in the dashboard: creating a signature webhook shows
// where the provider wants the URL and the secret and what it sends first,
// then shows the first delivery arriving without a reload. Standard Webhooks
// webhooks offer a ready, correctly signed curl command, run here as an
// admin would paste it into a terminal.

const admin = { name: 'Gia Admin', email: 'gia@guides.test', password: 'gia password 1234' };
const viewer = { name: 'Val Viewer', email: 'val@guides.test', password: 'val password 1234' };
const factory = { name: 'Guide Works', slug: 'guide-works' };
const webhooksPath = `/f/${factory.slug}/automations/webhooks`;

async function createSignatureWebhook(page: Page, name: string, scheme: string): Promise<void> {
  await page.goto(`${webhooksPath}/new`);
  const form = page.getByRole('form', { name: 'New webhook' });
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await form.getByRole('radio', { name: 'Provider signature' }).check();
  await form.getByLabel('Provider scheme').selectOption({ label: scheme });
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
}

/** Runs a curl command copied from the page, as a person would in a terminal. */
function runCurl(command: string): string {
  return execFileSync('bash', ['-c', `${command} --silent --show-error --write-out ' %{http_code}'`], { encoding: 'utf8', timeout: budget(15_000) });
}

test.describe.serial('provider setup guides', () => {
  let page: Page;

  useFactoryPage({ admin, factory, member: viewer, role: 'viewer' }, (opened) => (page = opened));

  test('creating a GitHub webhook shows the GitHub guide, and a signed GitHub ping appears without a reload', async ({ request }) => {
    await createSignatureWebhook(page, 'github-deploys', 'GitHub');
    const guide = page.getByText('Set up GitHub', { exact: true }).locator('..');
    await expect(guide).toContainText('Settings → Webhooks → Add webhook');
    await expect(guide).toContainText('Payload URL: the ingress URL. Content type: application/json. Secret: the secret shown after creation.');
    await expect(guide).toContainText('What GitHub sends first: A ping event as soon as the webhook is saved');
    const waiting = page.getByRole('status').filter({ hasText: 'Waiting for the first delivery' });
    await expect(waiting).toBeVisible();
    const url = await page.getByLabel('Ingress URL').inputValue();
    const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
    await screenshot(page, 'guide-github-created');

    // GitHub's ping, signed as GitHub signs it, while the page stays open.
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
    const body = JSON.stringify({ zen: 'Design for failure.', hook_id: 42, hook: { type: 'Repository', events: ['push'] } });
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const response = await request.post(url, {
      data: Buffer.from(body),
      headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'ping', 'X-GitHub-Delivery': 'd1e2f3a4-ping-0001', 'X-Hub-Signature-256': signature },
    });
    expect(response.status()).toBe(202);

    const first = page.getByRole('status', { name: 'First delivery' });
    await expect(first).toContainText('First delivery received', { timeout: budget(12_000) });
    await expect(first).toContainText('Accepted');
    await expect(first).toContainText('d1e2f3a4-ping-0001');
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
    await screenshot(page, 'guide-github-first-delivery');

    // The webhook's page keeps the guide, and its log lists the ping.
    await first.getByRole('link', { name: 'Open entry' }).click();
    await expect(page.getByText('d1e2f3a4-ping-0001').first()).toBeVisible();
    await page.goto(`${webhooksPath}`);
    await page.getByRole('link', { name: 'github-deploys' }).click();
    await expect(page.getByRole('heading', { name: 'Set up GitHub' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Deliveries', exact: true }).locator('tbody tr').first()).toContainText('d1e2f3a4-ping-0001');
    // GitHub performs no handshake: the status filter offers the five labels and the budget's refusals, no Handshake.
    await expect(page.getByRole('region', { name: 'Deliveries', exact: true }).getByLabel('Status').locator('option')).toHaveText([
      'All statuses',
      'Accepted',
      'Duplicate',
      'Rejected (auth)',
      'Rejected (invalid JSON)',
      'Rejected (too large)',
      'Refused (429)',
    ]);

    // GitHub names its events: the log shows each entry's type and filters by it.
    const sendEvent = async (event: string, payload: unknown, id: string) => {
      const text = JSON.stringify(payload);
      const sent = await request.post(url, {
        data: Buffer.from(text),
        headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': event, 'X-GitHub-Delivery': id, 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(text).digest('hex')}` },
      });
      expect(sent.status()).toBe(202);
    };
    await sendEvent('pull_request', { action: 'opened', number: 12, pull_request: { title: 'Add retries' } }, 'd1e2f3a4-pr-0002');
    await sendEvent('push', { ref: 'refs/heads/main', commits: [] }, 'd1e2f3a4-push-0003');
    await page.reload();
    const log = page.getByRole('region', { name: 'Deliveries', exact: true });
    await expect(log.getByRole('columnheader', { name: 'Event type' })).toBeVisible();
    await expect(log.locator('tbody tr').first()).toContainText('push');
    await expect(log.locator('tbody tr').nth(1)).toContainText('pull_request.opened');
    await expect(log.getByLabel('Event type').locator('option')).toHaveText(['All event types', 'ping (1)', 'pull_request.opened (1)', 'push (1)']);
    await log.getByLabel('Event type').selectOption('pull_request.opened');
    await expect(page).toHaveURL(/event=pull_request.opened/);
    await expect(log.locator('tbody tr')).toHaveCount(1);
    await expect(log.locator('tbody tr').first()).toContainText('d1e2f3a4-pr-0002');
    await screenshot(page, 'deliveries-by-event-type');
    // The health chart splits the accepted deliveries by type.
    const health = page.getByRole('region', { name: 'Health and deliveries' });
    await health.getByRole('group', { name: 'Chart by' }).getByRole('link', { name: 'By event type' }).click();
    await expect(page).toHaveURL(/chart=types/);
    await expect(health.locator('[data-event-type="total"]')).toHaveText('3');
    for (const type of ['ping', 'pull_request.opened', 'push']) await expect(health.locator(`[data-event-type="${type}"]`)).toHaveText('1');
    await expect(health.getByRole('img')).toHaveAttribute('aria-label', /^3 accepted deliveries from .*: ping 1, pull_request\.opened 1, push 1$/);
    await health.screenshot({ path: path.join(shotsDir, 'health-by-event-type.png') });
  });

  test('a provider that issues its secret shows where it goes and waits for it', async () => {
    await createSignatureWebhook(page, 'stripe-payments', 'Stripe');
    await expect(page.getByText('Developers → Webhooks → Add endpoint').first()).toBeVisible();
    await expect(page.getByText('What Stripe sends first:')).toBeVisible();
    await expect(page.getByRole('alert').or(page.getByRole('status')).filter({ hasText: 'enter the secret it issues' })).toBeVisible();
    await screenshot(page, 'guide-stripe-created');
  });

  test('a Standard Webhooks webhook offers a signed curl command that lands a delivery', async () => {
    await createSignatureWebhook(page, 'billing-events', 'Standard Webhooks (and Svix)');
    const curl = (await page.locator('pre').filter({ hasText: 'webhook-signature: v1,' }).innerText()).trim();
    expect(curl).toMatch(/^curl -X POST '.*\/webhooks\/w\/wh_[A-Za-z0-9]+' \\/);
    expect(curl).toContain("-H 'webhook-id: msg_test_");
    expect(runCurl(curl)).toMatch(/\{"delivery_id":"msg_test_\d+"\} 202$/);
    const first = page.getByRole('status', { name: 'First delivery' });
    await expect(first).toContainText('Accepted', { timeout: budget(12_000) });
    await screenshot(page, 'guide-standard-webhooks-curl');
  });

  test('the empty log of a Standard Webhooks webhook offers admins a signed curl command, and the delivery appears live', async () => {
    await createSignatureWebhook(page, 'invoice-events', 'Standard Webhooks (and Svix)');
    await page.getByRole('link', { name: 'Go to webhook' }).click();
    const log = page.getByRole('region', { name: 'Deliveries', exact: true });
    await expect(log.getByRole('heading', { name: 'No deliveries yet' })).toBeVisible();
    const curl = (await log.locator('pre').innerText()).trim();
    expect(curl).toContain("-H 'webhook-signature: v1,");
    await screenshot(page, 'guide-standard-webhooks-empty-log');
    expect(runCurl(curl)).toMatch(/ 202$/);
    await expect(log.locator('tbody tr').first()).toContainText('msg_test_', { timeout: budget(12_000) });
  });

  test('Meta: once the app secret is in, the webhook page shows the verify token, and Meta’s verification GET with it is answered', async ({ request }) => {
    await createSignatureWebhook(page, 'whatsapp-inbox', 'Meta (WhatsApp, Messenger, Instagram)');
    const url = await page.getByLabel('Ingress URL').inputValue();
    await page.getByRole('link', { name: 'Go to webhook' }).click();
    await expect(page.getByText('Shown to admins here once the app secret is entered.')).toBeVisible();
    const form = page.getByRole('form', { name: 'Save secret' });
    await form.getByLabel('Provider secret').fill('meta-app-secret-browser');
    await form.getByRole('button', { name: 'Save secret' }).click();
    await expect(page.getByRole('heading', { name: 'Set up Meta (WhatsApp, Messenger, Instagram)' })).toBeVisible();
    const token = page.getByLabel('Verify token', { exact: true });
    await expect(token).toHaveValue(/^[A-Za-z0-9_-]{43}$/);
    await screenshot(page, 'guide-meta-verify-token');

    const verify = (value: string) => request.get(`${url}?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${encodeURIComponent(value)}`);
    const answered = await verify(await token.inputValue());
    expect(answered.status()).toBe(200);
    expect(await answered.text()).toBe('1158201444');
    expect((await verify('meatyhamhock')).status()).toBe(401);
  });

  test('Notion: the page waits for its verification token, then shows it to an admin exactly once', async ({ request }) => {
    await createSignatureWebhook(page, 'notion-pages', 'Notion');
    await expect(page.getByText('takes the secret from the provider’s first request')).toBeVisible();
    const url = await page.getByLabel('Ingress URL').inputValue();
    await page.getByRole('link', { name: 'Go to webhook' }).click();
    await expect(page.getByText('Waiting for Notion’s first request, which carries the secret')).toBeVisible();

    const token = 'secret_notionVerificationTokenE2E0001';
    expect((await request.post(url, { data: { verification_token: token } })).status()).toBe(200);
    await page.reload();
    const alert = page.getByRole('status').filter({ hasText: 'Notion sent its verification token' });
    await expect(alert).toBeVisible();
    expect(await page.content()).not.toContain(token);
    await alert.getByRole('button', { name: 'Show the token once' }).click();
    await expect(alert.getByLabel('Verification token')).toHaveValue(token);
    await screenshot(page, 'guide-notion-token');
    // The live log refreshes the page every few seconds; the revealed token stays while the admin copies it.
    // A refresh starts only once the one before it has rendered, so two refreshes begun since the reveal mean one was applied.
    const pagePath = new URL(page.url()).pathname;
    let refreshes = 0;
    const onRequest = (sent: Request) => {
      const headers = sent.headers();
      if (headers.rsc === '1' && !headers['next-router-prefetch'] && new URL(sent.url()).pathname === pagePath) refreshes += 1;
    };
    page.on('request', onRequest);
    await expect.poll(() => refreshes, { timeout: budget(15_000) }).toBeGreaterThanOrEqual(2);
    page.off('request', onRequest);
    await expect(alert.getByLabel('Verification token')).toHaveValue(token);
    await page.reload();
    await expect(alert).toContainText('The token was already shown');
    expect(await page.content()).not.toContain(token);
    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    await expect(deliveries.locator('tbody tr').first()).toContainText('Handshake');
    // A provider with a handshake offers it as a status filter.
    await deliveries.getByLabel('Status').selectOption('handshake');
    await expect(page).toHaveURL(/status=handshake/);
    await expect(deliveries.locator('tbody tr')).toHaveCount(1);
    await expect(deliveries.locator('tbody tr').first()).toContainText('Handshake');
  });
});
