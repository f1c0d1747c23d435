import { expect, test, type Page } from '@playwright/test';
import { completeFirstRunIfNeeded, screenshot, setUpFactory, signIn } from './helpers';

// Webhooks and team secrets in the dashboard, on this spec's own factory and
// accounts: creation in every authentication mode with the secret shown
// once, the provider's second step, enable/disable, rotation, deletion, the
// Secrets page, the 20-webhook limit, and what an editor may see.

const admin = { name: 'Wren Admin', email: 'wren@hooks.test', password: 'wren password 123' };
const editor = { name: 'Eli Editor', email: 'eli@hooks.test', password: 'eli password 1234' };
const factory = { name: 'Hook Works', slug: 'hook-works' };
const webhooksPath = `/f/${factory.slug}/automations/webhooks`;

type NewWebhook = { name: string; mode: 'Bearer token' | 'URL token' | 'Provider signature'; scheme?: string; providerSecret?: string };

/** Fills and submits the New webhook form that is on the page. */
async function submitWebhookForm(page: Page, webhook: NewWebhook): Promise<void> {
  const form = page.getByRole('form', { name: 'New webhook' });
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill(webhook.name);
  await form.getByRole('radio', { name: webhook.mode }).check();
  if (webhook.scheme) await form.getByLabel('Provider scheme').selectOption(webhook.scheme);
  if (webhook.providerSecret) await form.getByLabel('Provider secret').fill(webhook.providerSecret);
  await form.getByRole('button', { name: 'Create webhook' }).click();
}

/** Creates a webhook through the form and returns what the result panel shows once. */
async function createWebhook(page: Page, webhook: NewWebhook): Promise<{ url: string; secret: string | null }> {
  await page.goto(`${webhooksPath}/new`);
  await submitWebhookForm(page, webhook);
  await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
  const url = await page.getByLabel('Ingress URL').inputValue();
  const secretField = page.getByLabel('Secret', { exact: true });
  const secret = (await secretField.count()) > 0 ? await secretField.inputValue() : null;
  return { url, secret };
}

async function openWebhook(page: Page, name: string): Promise<void> {
  await page.goto(webhooksPath);
  await page.getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

const stateBadge = (page: Page) => page.locator('main header');

test.describe.serial('webhooks and team secrets', () => {
  let page: Page;
  let deploysSecret = '';
  let deploysUrl = '';
  let cronJobUrl = '';
  const hello = { data: { hello: 'world' } };

  test.beforeAll(async ({ browser }) => {
    await completeFirstRunIfNeeded(browser);

    page = await setUpFactory(browser, { admin, factory, member: editor, role: 'editor' });
  });

  test.afterAll(async () => {
    await page.context().close();
  });

  test('an admin creates a bearer-token webhook and sees its secret exactly once', async ({ request }) => {
    await page.goto(webhooksPath);
    await expect(page.getByRole('heading', { name: 'No webhooks yet' })).toBeVisible();
    await screenshot(page, 'webhooks-empty');
    await page.getByRole('link', { name: 'New webhook' }).click();
    await expect(page).toHaveURL(`${webhooksPath}/new`);

    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(form.getByText('Enter a name')).toBeVisible();

    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('deploys');
    await expect(form.getByRole('radio', { name: 'Bearer token' })).toBeChecked();
    await expect(form.getByLabel('Secret name')).toHaveValue('DEPLOYS_WEBHOOK_SECRET');
    await expect(form.getByLabel('Provider scheme')).toHaveCount(0);
    await screenshot(page, 'webhook-create-form');
    await form.getByRole('button', { name: 'Create webhook' }).click();

    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: 'Copy the secret now: you will not see it again' })).toBeVisible();
    const url = await page.getByLabel('Ingress URL').inputValue();
    expect(url).toMatch(/\/webhooks\/w\/wh_[A-Za-z0-9]+$/);
    deploysUrl = url;
    deploysSecret = await page.getByLabel('Secret', { exact: true }).inputValue();
    expect(deploysSecret.length).toBeGreaterThanOrEqual(32);
    await expect(page.locator('pre')).toContainText(`curl -X POST '${url}'`);
    await expect(page.locator('pre')).toContainText(`-H 'Authorization: Bearer ${deploysSecret}'`);
    await screenshot(page, 'webhook-created');
    // What the panel shows is what the sender needs.
    expect((await request.post(url, { ...hello, headers: { Authorization: `Bearer ${deploysSecret}` } })).status()).toBe(202);
    expect((await request.post(url, hello)).status()).toBe(401);

    await page.reload();
    await expect(page.getByRole('form', { name: 'New webhook' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toHaveCount(0);
    expect(await page.content()).not.toContain(deploysSecret);

    await openWebhook(page, 'deploys');
    await expect(page.getByLabel('Ingress URL')).toHaveValue(url);
    await expect(stateBadge(page).getByText('Enabled', { exact: true })).toBeVisible();
    expect(await page.content()).not.toContain(deploysSecret);
  });

  test('a URL-token webhook shows its URL with the token once, then with {token}; its Event type is checked at the field', async ({ request }) => {
    await page.goto(`${webhooksPath}/new`);
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('cron-job');
    await form.getByRole('radio', { name: 'URL token' }).check();
    const eventType = form.getByRole('textbox', { name: /^Event type/ });
    await eventType.fill('X-Job: kind');
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(eventType).toHaveAttribute('aria-invalid', 'true');
    await expect(eventType).toHaveAccessibleDescription(/Enter a header name such as X-Event-Type, without a colon or spaces/);
    await form.getByLabel('Read the event type from').selectOption('Body path');
    await eventType.fill('job..kind');
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(eventType).toHaveAccessibleDescription(/Write keys separated by single dots, such as data.type, with no empty key/);
    await eventType.fill('job.kind');
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    const url = await page.getByLabel('Ingress URL').inputValue();
    const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
    expect(secret).toBeTruthy();
    cronJobUrl = url;
    expect((await request.post(url, hello)).status()).toBe(202);
    expect(url).toMatch(new RegExp(`/webhooks/w/wh_[A-Za-z0-9]+/${secret}$`));
    await expect(page.locator('pre')).toContainText(`curl -X POST '${url}'`);
    await expect(page.locator('pre')).not.toContainText('Authorization');

    await page.getByRole('link', { name: 'Go to webhook' }).click();
    await expect(page.getByRole('heading', { name: 'cron-job', level: 1 })).toBeVisible();
    await expect(page.getByLabel('Ingress URL')).toHaveValue(url.replace(secret!, '{token}'));
    await expect(page.getByText('The URL contains the secret in place of {token}; it was shown once at creation.')).toBeVisible();
    await expect(page.getByText('Body path job.kind')).toBeVisible();
    expect(await page.content()).not.toContain(secret!);

    // The admin changes the Event type setting on the webhook's page: checked at the field, then saved.
    const setting = page.getByRole('form', { name: 'Event type setting' });
    const settingInput = setting.getByRole('textbox', { name: /^Event type/ });
    await expect(settingInput).toHaveValue('job.kind');
    await setting.getByLabel('Read the event type from').selectOption('Header');
    await settingInput.fill('X Job');
    await setting.getByRole('button', { name: 'Save event type' }).click();
    await expect(settingInput).toHaveAccessibleDescription(/Enter a header name such as X-Event-Type, without a colon or spaces/);
    await settingInput.fill('X-Job-Kind');
    await setting.getByRole('button', { name: 'Save event type' }).click();
    await expect(setting.getByText('Saved. New deliveries take their type from it.')).toBeVisible();
    await expect(page.getByText('Header x-job-kind')).toBeVisible();
    const typed = await request.post(url, { ...hello, headers: { 'X-Job-Kind': 'nightly.backup' } });
    expect(typed.status()).toBe(202);
    await page.reload();
    const log = page.getByRole('region', { name: 'Deliveries' });
    await expect(log.getByRole('row').nth(1).getByRole('cell', { name: 'nightly.backup' })).toBeVisible();
    // Emptied, the setting is removed.
    await settingInput.fill('');
    await setting.getByRole('button', { name: 'Save event type' }).click();
    await expect(setting.getByText('Removed. New deliveries have no event type.')).toBeVisible();
    await expect(page.locator('dt', { hasText: /^Event type$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('Not set');

    // The IP allowlist: a bad range is named next to the field; a list that refuses the admin's own
    // address (the browser's: 127.0.0.1 or ::1, as localhost resolves) asks before it is saved.
    const allowlist = page.getByRole('form', { name: 'IP allowlist' });
    const ranges = allowlist.getByRole('textbox', { name: /^IP allowlist/ });
    await expect(ranges).toHaveAccessibleDescription(/Your address as Tripline sees it: (127\.0\.0\.1|::1)\./);
    await ranges.fill('192.0.2.0/24\n10.0.0.0/33');
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(ranges).toHaveAccessibleDescription(/Line 2: "10\.0\.0\.0\/33" has an invalid prefix length: an IPv4 range ends in \/0 to \/32/);
    await ranges.fill('192.0.2.9/24');
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(allowlist.getByText(/^This list refuses your own address, (127\.0\.0\.1|::1)$/)).toBeVisible();
    await screenshot(page, 'webhook-allowlist-warning');
    expect((await request.post(url, hello)).status()).toBe(202);
    await allowlist.getByRole('button', { name: 'Save anyway' }).click();
    await expect(allowlist.getByText('Saved. Requests from outside this range now get 404.')).toBeVisible();
    await expect(page.getByRole('list', { name: 'Allowed ranges' })).toHaveText('192.0.2.0/24');
    expect((await request.post(url, hello)).status()).toBe(404);
    await ranges.fill('127.0.0.0/8\n::1');
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(allowlist.getByText('Saved. Requests from outside these 2 ranges now get 404.')).toBeVisible();
    await expect(page.getByRole('list', { name: 'Allowed ranges' }).getByRole('listitem')).toHaveText(['127.0.0.0/8', '::1']);
    expect((await request.post(url, hello)).status()).toBe(202);
    await page.reload();
    const refusedEntry = page.getByRole('region', { name: 'Deliveries' }).getByRole('row').filter({ hasText: 'Refused (address)' });
    await expect(refusedEntry).toHaveCount(1);
    // With a list, the log's status filter offers its refusals.
    await expect(page.getByRole('region', { name: 'Deliveries' }).getByLabel('Status').locator('option', { hasText: 'Refused (address)' })).toHaveCount(1);
    await screenshot(page, 'webhook-allowlist');
    await ranges.fill('');
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(allowlist.getByText('Saved. Every address is admitted.')).toBeVisible();
    await expect(page.locator('dt', { hasText: /^IP allowlist$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('Every address');
  });

  test('a GitHub signature webhook takes the secret the admin chose', async () => {
    await page.goto(`${webhooksPath}/new`);
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('github-pushes');
    await form.getByRole('radio', { name: 'Provider signature' }).check();
    await form.getByLabel('Provider scheme').selectOption('github');
    // The scheme names GitHub's event type: no Event type setting to fill.
    await expect(form.getByRole('textbox', { name: /^Event type/ })).toHaveCount(0);
    await expect(form.getByText('In the repository or organization, open Settings → Webhooks → Add webhook.')).toBeVisible();
    await expect(form.getByText('Leave blank and Tripline generates one to give the sender.')).toBeVisible();
    await form.getByLabel('Provider secret').fill('a-github-secret-of-our-choosing');
    await form.getByLabel('Delivery ID header').fill('X-Request-Id');
    await screenshot(page, 'webhook-create-form-signature');
    await form.getByRole('button', { name: 'Create webhook' }).click();

    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    await expect(page.getByLabel('Secret', { exact: true })).toHaveCount(0);
    await expect(page.getByText('Set up GitHub')).toBeVisible();
    await expect(page.locator('pre')).toHaveCount(0);

    await page.getByRole('link', { name: 'Go to webhook' }).click();
    await expect(page.getByRole('heading', { name: 'Set up GitHub' })).toBeVisible();
    await expect(page.getByText('x-request-id', { exact: true })).toBeVisible();
    expect(await page.content()).not.toContain('a-github-secret-of-our-choosing');
  });

  test('a Standard Webhooks webhook with a blank secret gets a generated whsec_ secret', async () => {
    const { secret } = await createWebhook(page, { name: 'svix-events', mode: 'Provider signature', scheme: 'standard-webhooks' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await expect(page.getByText('Set up Standard Webhooks (and Svix)')).toBeVisible();
  });

  test('a Stripe webhook awaits the secret Stripe issues, entered in a second step', async () => {
    await page.goto(`${webhooksPath}/new`);
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('radio', { name: 'Provider signature' }).check();
    await form.getByLabel('Provider scheme').selectOption('stripe');
    await expect(
      form.getByText('Leave blank if Stripe issues it only after you give it the URL: you will enter it in a second step.'),
    ).toBeVisible();
    await submitWebhookForm(page, { name: 'stripe-payments', mode: 'Provider signature' });
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    await expect(page.getByLabel('Secret', { exact: true })).toHaveCount(0);
    await expect(page.getByText(/Next: give Stripe the URL, then enter the secret it issues on the webhook.s page/)).toBeVisible();
    await screenshot(page, 'webhook-created-awaiting');

    await page.getByRole('link', { name: 'Go to webhook' }).click();
    await expect(stateBadge(page).getByText('Awaiting secret')).toBeVisible();
    const waiting = page.getByRole('alert').filter({ hasText: 'every request is refused (401) until you enter it' });
    await expect(waiting).toContainText('Developers → Webhooks → Add endpoint');
    await screenshot(page, 'webhook-awaiting-secret');

    await waiting.getByRole('button', { name: 'Save secret' }).click();
    await expect(waiting.getByText('Enter the secret the provider issued')).toBeVisible();
    await waiting.getByLabel('Provider secret').fill('whsec_issued_by_stripe_123');
    await waiting.getByRole('button', { name: 'Save secret' }).click();
    await expect(stateBadge(page).getByText('Enabled', { exact: true })).toBeVisible();
    await expect(waiting).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'Replace provider secret' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Rotate secret' })).toHaveCount(0);
    await screenshot(page, 'webhook-detail-provider');
  });

  test('the list shows every webhook with its authentication, provider and state', async () => {
    await page.goto(webhooksPath);
    await expect(page.getByRole('heading', { name: '5 of 20 webhooks' })).toBeVisible();
    const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    await expect(row('deploys')).toContainText('Bearer token');
    // The Health column: deploys got an accepted delivery, svix-events nothing yet.
    await expect(row('deploys')).toContainText('HealthyLast accepted');
    await expect(row('svix-events')).toContainText('NewNothing accepted yet');
    await expect(row('cron-job')).toContainText('URL token');
    await expect(row('github-pushes')).toContainText('GitHub');
    await expect(row('svix-events')).toContainText('Standard Webhooks (and Svix)');
    await expect(row('stripe-payments')).toContainText('Enabled');
    await screenshot(page, 'webhooks-list');
  });

  test('an action that cannot reach the server says so where it was asked for, and the page stays', async () => {
    await openWebhook(page, 'deploys');
    // Server actions are POSTs with a Next-Action header: these fail on the way, as a dropped connection or a restarting server would.
    await page.route('**/*', (route) => (route.request().headers()['next-action'] ? route.abort('connectionreset') : route.fallback()));
    try {
      const enabled = page.getByRole('switch', { name: 'Enabled' });
      await enabled.click();
      await expect(page.getByRole('alert').filter({ hasText: 'Tripline did not answer: the connection failed or the server is restarting.' })).toBeVisible();
      // The switch is described by the message, so a screen reader finds it from the control too.
      await expect(enabled).toHaveAccessibleDescription(/Tripline did not answer/);
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = page.locator('dialog[open]');
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'Reload the page to see whether the change was made' })).toHaveCount(2);
      await screenshot(page, 'webhook-action-unreachable');
      // Still the webhook's page, not an error page.
      await expect(page.getByRole('heading', { name: 'deploys', level: 1 })).toBeVisible();
    } finally {
      await page.unroute('**/*');
    }
    await page.reload();
    await expect(page.getByRole('switch', { name: 'Enabled' })).toBeChecked();
  });

  test('an admin disables, enables, rotates and deletes webhooks', async ({ request }) => {
    await openWebhook(page, 'deploys');
    const enabled = page.getByRole('switch', { name: 'Enabled' });
    await expect(enabled).toBeChecked();
    await enabled.click();
    await expect(stateBadge(page).getByText('Disabled', { exact: true })).toBeVisible();
    await expect(enabled).not.toBeChecked();
    expect((await request.post(deploysUrl, { ...hello, headers: { Authorization: `Bearer ${deploysSecret}` } })).status()).toBe(404);
    await page.reload();
    await expect(page.getByRole('switch', { name: 'Enabled' })).not.toBeChecked();
    await page.getByRole('switch', { name: 'Enabled' }).click();
    await expect(stateBadge(page).getByText('Enabled', { exact: true })).toBeVisible();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.locator('dialog[open]');
    await expect(dialog).toContainText('The old secret stops working immediately, with no overlap.');
    await screenshot(page, 'webhook-rotate-dialog');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByLabel('New secret');
    await expect(rotated).toHaveValue(/.{32,}/);
    const newSecret = await rotated.inputValue();
    expect(newSecret).not.toBe(deploysSecret);
    expect((await request.post(deploysUrl, { ...hello, headers: { Authorization: `Bearer ${deploysSecret}` } })).status()).toBe(401);
    expect((await request.post(deploysUrl, { ...hello, headers: { Authorization: `Bearer ${newSecret}` } })).status()).toBe(202);
    await screenshot(page, 'webhook-detail-rotated');
    await page.reload();
    await expect(page.getByLabel('New secret')).toHaveCount(0);

    await openWebhook(page, 'cron-job');
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await expect(page.locator('dialog[open]')).toContainText('Senders get 404 immediately.');
    await page.locator('dialog[open]').getByRole('button', { name: 'Delete webhook' }).click();
    await expect(page).toHaveURL(new RegExp(`${webhooksPath}$`));
    await expect(page.getByRole('link', { name: 'cron-job', exact: true })).toHaveCount(0);
    await expect(page.getByRole('heading', { name: '4 of 20 webhooks' })).toBeVisible();
    expect((await request.post(cronJobUrl, hello)).status()).toBe(404);
  });

  test('admins manage team secrets; a changed value is pending until the webhook applies again', async () => {
    await page.getByRole('navigation', { name: 'Factory' }).getByRole('link', { name: 'Secrets' }).click();
    await expect(page.getByRole('heading', { name: 'Secrets', level: 1 })).toBeVisible();
    const row = (name: string) => page.getByRole('row').filter({ hasText: name });
    await expect(row('DEPLOYS_WEBHOOK_SECRET').getByRole('link', { name: 'deploys' })).toBeVisible();
    await expect(row('CRON_JOB_WEBHOOK_SECRET')).toContainText('Not used');

    await row('DEPLOYS_WEBHOOK_SECRET').getByRole('button', { name: 'Delete' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Delete secret' }).click();
    await expect(row('DEPLOYS_WEBHOOK_SECRET').getByRole('alert')).toContainText('DEPLOYS_WEBHOOK_SECRET is used by the webhook deploys');

    const form = page.getByRole('form', { name: 'Add a secret' });
    await form.getByLabel('Name').fill('SHARED_TOKEN');
    await form.getByLabel('Value').fill('a shared value');
    await form.getByRole('button', { name: 'Add secret' }).click();
    await expect(page.getByText('SHARED_TOKEN was added.')).toBeVisible();
    await screenshot(page, 'secrets');
    await row('SHARED_TOKEN').getByRole('button', { name: 'Delete' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Delete secret' }).click();
    await expect(row('SHARED_TOKEN')).toHaveCount(0);

    await row('DEPLOYS_WEBHOOK_SECRET').getByRole('button', { name: 'Replace value' }).click();
    const dialog = page.locator('dialog[open]');
    await expect(dialog).toContainText('keep checking the old value until they next apply');
    await dialog.getByLabel('New value').fill('a-new-deploys-secret-value-0123456789');
    await screenshot(page, 'secret-replace-dialog');
    await dialog.getByRole('button', { name: 'Replace value' }).click();
    await expect(page.locator('dialog[open]')).toHaveCount(0);

    await openWebhook(page, 'deploys');
    await expect(stateBadge(page).getByText('Secret change pending')).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: 'Turn Enabled off and on to apply it.' })).toBeVisible();
    await page.getByRole('switch', { name: 'Enabled' }).click();
    await expect(stateBadge(page).getByText('Disabled', { exact: true })).toBeVisible();
    await page.getByRole('switch', { name: 'Enabled' }).click();
    await expect(stateBadge(page).getByText('Enabled', { exact: true })).toBeVisible();
    await expect(stateBadge(page).getByText('Secret change pending')).toHaveCount(0);
  });

  test('an editor reads webhooks but manages nothing and has no Secrets page', async ({ browser }) => {
    const editorPage = await (await browser.newContext()).newPage();
    await signIn(editorPage, editor.email, editor.password);
    await editorPage.goto(webhooksPath);
    await expect(editorPage.getByRole('heading', { name: '4 of 20 webhooks' })).toBeVisible();
    await expect(editorPage.getByRole('link', { name: 'New webhook' })).toHaveCount(0);
    await expect(editorPage.getByRole('button', { name: 'New webhook' })).toHaveCount(0);
    await expect(editorPage.getByRole('navigation', { name: 'Factory' }).getByRole('link', { name: 'Secrets' })).toHaveCount(0);

    await editorPage.getByRole('link', { name: 'deploys', exact: true }).click();
    await expect(editorPage.getByRole('heading', { name: 'deploys', level: 1 })).toBeVisible();
    await expect(editorPage.getByLabel('Ingress URL')).toHaveValue(/\/webhooks\/w\/wh_/);
    await expect(editorPage.getByRole('switch')).toHaveCount(0);
    await expect(editorPage.getByRole('button', { name: /Rotate|Delete|Replace|Save/ })).toHaveCount(0);
    await screenshot(editorPage, 'webhook-detail-editor');

    await openWebhook(editorPage, 'stripe-payments');
    await expect(editorPage.getByRole('heading', { name: 'Set up Stripe' })).toBeVisible();
    await expect(editorPage.getByRole('form')).toHaveCount(0);

    await editorPage.goto(`${webhooksPath}/new`);
    await expect(editorPage.getByRole('heading', { name: 'You need the admin role' })).toBeVisible();
    await expect(editorPage.getByRole('form', { name: 'New webhook' })).toHaveCount(0);
    await editorPage.goto(`/f/${factory.slug}/secrets`);
    await expect(editorPage.getByRole('heading', { name: 'You need the admin role' })).toBeVisible();
    await expect(editorPage.getByRole('table')).toHaveCount(0);
    expect((await editorPage.goto(`${webhooksPath}/wh_doesnotexist`))?.status()).toBe(404);
    await editorPage.context().close();
  });

  test('the 21st webhook is refused', async () => {
    // Four exist; the form's "Create another" makes the next ones quickly.
    await page.goto(`${webhooksPath}/new`);
    for (let n = 5; n <= 19; n++) {
      await submitWebhookForm(page, { name: `bulk-${n}`, mode: 'Bearer token' });
      await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
      await page.getByRole('button', { name: 'Create another webhook' }).click();
    }
    // A second tab opened before the last free slot is taken.
    const late = await page.context().newPage();
    await late.goto(`${webhooksPath}/new`);
    await expect(late.getByRole('form', { name: 'New webhook' })).toBeVisible();

    await submitWebhookForm(page, { name: 'bulk-20', mode: 'Bearer token' });
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    await page.getByRole('button', { name: 'Create another webhook' }).click();
    await expect(page.getByRole('heading', { name: 'This factory has 20 webhooks, the most it can have' })).toBeVisible();
    await screenshot(page, 'webhook-new-at-limit');

    await submitWebhookForm(late, { name: 'one-too-many', mode: 'Bearer token' });
    await expect(late.getByRole('alert').filter({ hasText: 'A factory can have at most 20 webhooks. Delete one you no longer use to create another.' })).toBeVisible();
    await screenshot(late, 'webhook-create-refused');
    await late.close();

    await page.goto(webhooksPath);
    await expect(page.getByRole('heading', { name: '20 of 20 webhooks' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'New webhook' })).toBeDisabled();
    await expect(page.getByText('Limit reached: delete a webhook to create another.')).toBeVisible();
    await expect(page.getByRole('link', { name: 'one-too-many' })).toHaveCount(0);
    await screenshot(page, 'webhooks-list-limit');
  });
});
