import { randomBytes } from 'node:crypto';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { startGitHubFake, type FakeDelivery, type GitHubFake } from '../../tests/support/fakes/github';
import { rememberSecrets } from '../fixtures/secrets';
import path from 'node:path';
import { axeViolations, completeFirstRunIfNeeded, screenshot, setUpFactory, shotsDir, signIn } from './helpers';

// Connecting a GitHub webhook in the dashboard, on this spec's own factory and
// accounts, against the fake GitHub (tests/support/fakes/github.ts), which
// checks every request against GitHub's REST description and sends signed
// deliveries to the browser server's real ingress (the server allows API base
// URLs on loopback: TRIPLINE_CONNECTION_ALLOW in e2e/global-setup.ts). The
// form's errors, the connected card with the hook's ID and link, Check now
// recovering deliveries GitHub could not send, the log's marker on them, the
// rotate dialog, what a viewer sees, and Disconnect deleting GitHub's hook.

const admin = { name: 'Gia Admin', email: 'gia@connections.test', password: 'gia password 123' };
const viewer = { name: 'Val Viewer', email: 'val@connections.test', password: 'val password 1234' };
const factory = { name: 'Hook Link', slug: 'hook-link' };
const webhooksPath = `/f/${factory.slug}/automations/webhooks`;

const adminToken = `ghp_${randomBytes(18).toString('base64url')}`;
const readOnlyToken = `ghp_${randomBytes(18).toString('base64url')}`;
const target = `octo/app-${randomBytes(3).toString('hex')}`;

const connectionOf = (page: Page) => page.getByRole('region', { name: 'Connection' });
const logOf = (page: Page) => page.getByRole('region', { name: 'Deliveries', exact: true });
/** The row of a detail in the connection card, by its label. */
const detail = (card: Locator, label: string) => card.locator('dl > div').filter({ has: card.page().locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');

/** A screenshot of one part of the page, to look at closely beside the full page's. */
const shoot = (part: Locator, name: string) => part.screenshot({ path: path.join(shotsDir, `${name}.png`) });

/** Creates a signature webhook of `scheme` through the New webhook form; returns its page's path. */
async function createSignatureWebhook(page: Page, name: string, scheme: string): Promise<string> {
  await page.goto(`${webhooksPath}/new`);
  const create = page.getByRole('form', { name: 'New webhook' });
  await create.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await create.getByRole('radio', { name: 'Provider signature' }).check();
  await create.getByLabel('Provider scheme').selectOption(scheme);
  await create.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
  // A generated secret is shown once: the logs project checks that no log holds it.
  const secret = page.getByLabel('Secret', { exact: true });
  if ((await secret.count()) > 0) rememberSecrets(await secret.inputValue());
  const uid = new URL(await page.getByLabel('Ingress URL').inputValue()).pathname.split('/').at(-1)!;
  return `${webhooksPath}/${uid}`;
}

async function addSecret(page: Page, name: string, value: string): Promise<void> {
  await page.goto(`/f/${factory.slug}/secrets`);
  const form = page.getByRole('form', { name: 'Add a secret' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Value').fill(value);
  await form.getByRole('button', { name: 'Add secret' }).click();
  await expect(form.getByText(`${name} was added`)).toBeVisible();
}

test.describe.serial('connecting a webhook to GitHub', () => {
  test.describe.configure({ timeout: budget(120_000) });
  let page: Page;
  let fake: GitHubFake;
  let webhookPath = '';
  let hookId = 0;

  test.beforeAll(async ({ browser }) => {
    fake = await startGitHubFake();
    fake.tokens.set(adminToken, 'admin');
    fake.tokens.set(readOnlyToken, 'read');
    rememberSecrets(adminToken, readOnlyToken);
    await completeFirstRunIfNeeded(browser);
    page = await setUpFactory(browser, { admin, factory, member: viewer, role: 'viewer' });
  });

  test.afterAll(async () => {
    await page?.context().close();
    expect(fake.problems).toEqual([]);
    await fake?.close();
  });

  test('an admin connects the webhook: the form names what is wrong next to each field, then the card shows the hook', async () => {
    webhookPath = await createSignatureWebhook(page, 'gh-app', 'github');

    await addSecret(page, 'GH_READ_TOKEN', readOnlyToken);
    await addSecret(page, 'GH_HOOKS_TOKEN', adminToken);

    await page.goto(webhookPath);
    const card = connectionOf(page);
    await expect(card.getByRole('heading', { name: 'Connection' })).toBeVisible();
    await card.getByRole('button', { name: 'Connect to GitHub…' }).click();
    const form = card.getByRole('form', { name: 'Connect to GitHub' });
    await expect(form.getByRole('radio', { name: 'Repository' })).toBeChecked();
    await expect(form.getByLabel('API base URL')).toHaveAttribute('placeholder', 'https://api.github.com');
    // The credential is a team secret chosen by name, with the way to create one: never a token field.
    await expect(form.getByLabel('API credential').locator('option:not([disabled])')).toHaveText(['GH_HOOKS_TOKEN', 'GH_READ_TOKEN']);
    await expect(form.getByRole('link', { name: 'Secrets page' })).toHaveAttribute('href', `/f/${factory.slug}/secrets`);
    await expect(form.locator('input[type="password"]')).toHaveCount(0);

    // Nothing filled in: each field says what it needs, before anything is sent.
    await form.getByRole('button', { name: 'Connect to GitHub' }).click();
    await expect(form.getByRole('textbox', { name: /^Repository/ })).toHaveAccessibleDescription(/Enter the repository/);
    await expect(form.getByLabel('API credential')).toHaveAttribute('aria-invalid', 'true');
    await form.getByLabel('Event types').fill('issues, Not An Event');
    await form.getByRole('button', { name: 'Connect to GitHub' }).click();
    await expect(form.getByLabel('Event types')).toHaveAccessibleDescription(/Not.*use event names such as push or issues/);

    // A token GitHub does not let manage hooks: GitHub's reason, next to the credential.
    await form.getByRole('textbox', { name: /^Repository/ }).fill(target);
    await form.getByLabel('API base URL').fill(fake.url);
    await form.getByLabel('API credential').selectOption('GH_READ_TOKEN');
    await form.getByLabel('Event types').fill('issues');
    await form.getByRole('button', { name: 'Connect to GitHub' }).click();
    await expect(form.getByLabel('API credential')).toHaveAccessibleDescription(/lacks the `admin:repo_hook` permission/, { timeout: budget(30_000) });
    expect(fake.hooks.size).toBe(0);
    await screenshot(page, 'connection-form-errors');
    await shoot(card, 'connection-form-errors-card');
    expect(await axeViolations(page, 'connect form with errors')).toEqual([]);

    await form.getByLabel('API credential').selectOption('GH_HOOKS_TOKEN');
    await form.getByRole('button', { name: 'Connect to GitHub' }).click();
    await expect(card.getByText('Connected', { exact: true })).toBeVisible({ timeout: budget(30_000) });
    const [github] = [...fake.hooks.values()];
    hookId = github!.id;
    rememberSecrets(github!.config.secret!);
    expect(github).toMatchObject({ scope: `repos/${target}`, events: ['issues'] });
    await expect(detail(card, 'Repository')).toContainText(target);
    await expect(detail(card, 'Hook')).toContainText(String(hookId));
    await expect(card.getByRole('link', { name: /Open on GitHub/ })).toHaveAttribute('href', `${fake.url}/${target}/settings/hooks/${hookId}`);
    await expect(card.getByRole('list', { name: 'Event types' }).getByRole('listitem')).toHaveText(['issues']);
    await expect(detail(card, 'API credential')).toContainText('GH_HOOKS_TOKEN');
    // GitHub's ping reached the ingress and verified with the secret set on both sides.
    await expect.poll(() => fake.deliveries.filter((d) => d.hookId === hookId && d.event === 'ping').map((d) => d.status_code)).toEqual([202]);
  });

  test('Check now asks GitHub again for deliveries that never arrived, and the log marks them recovered', async () => {
    const card = connectionOf(page);
    const github = fake.hooks.get(hookId)!;
    // GitHub could not reach Tripline for these three (here: the hook pointed elsewhere for a moment).
    const url = github.config.url;
    github.config.url = 'http://127.0.0.1:9/unreachable';
    const missed: FakeDelivery[] = [];
    for (let i = 0; i < 3; i++) missed.push(...(await fake.send(`repos/${target}`, 'issues', { action: 'opened', issue: { number: 40 + i } })));
    github.config.url = url;
    expect(missed.map((d) => d.status_code)).toEqual([0, 0, 0]);

    await page.reload();
    await card.getByRole('button', { name: 'Check now' }).click();
    await expect(detail(card, 'Recovered')).toContainText('Last check: 3 deliveries missing from the log, all asked for again.', { timeout: budget(60_000) });
    await expect(card.getByRole('button', { name: 'Check now' })).toBeEnabled();
    await fake.settled();
    for (const d of missed) await expect(logOf(page).locator(`tbody tr[data-delivery-id="${d.guid}"]`)).toHaveCount(1);

    // The next pass finds them in the log, and marks those only GitHub's redelivery brought.
    await card.getByRole('button', { name: 'Check now' }).click();
    await expect(detail(card, 'Recovered')).toContainText('Last check: nothing missing.', { timeout: budget(60_000) });
    await expect(detail(card, 'Recovered')).toContainText('Last 7 days: 3 deliveries recovered into the log');
    for (const d of missed) {
      await expect(logOf(page).locator(`tbody tr[data-delivery-id="${d.guid}"]`).getByText('Recovered from GitHub')).toBeVisible();
    }
    // The ping came live: no marker.
    const ping = fake.deliveries.find((d) => d.hookId === hookId && d.event === 'ping')!;
    await expect(logOf(page).locator(`tbody tr[data-delivery-id="${ping.guid}"]`)).toBeVisible();
    await expect(logOf(page).locator(`tbody tr[data-delivery-id="${ping.guid}"]`).getByText(/Recovered/)).toHaveCount(0);
    await expect(detail(card, 'Last check')).toContainText(/just now|s ago/);
    await expect(detail(card, 'Next check')).toContainText(/in \d+ (s|min)/);
    await screenshot(page, 'connection-connected');
    await shoot(card, 'connection-connected-card');
    await shoot(logOf(page), 'connection-log-recovered');
    expect(await axeViolations(page, 'connected webhook page')).toEqual([]);

    // The entry's page says where it came from.
    await logOf(page).locator(`tbody tr[data-delivery-id="${missed[0]!.guid}"]`).getByRole('link', { name: /View/ }).click();
    await expect(page.getByRole('heading', { name: 'Delivery', level: 1 })).toBeVisible();
    await expect(page.locator('dl > div').filter({ hasText: /^Origin/ })).toContainText('Recovered from GitHub');
    await expect(page.getByText('GitHub sent it again when the webhook’s recovery pass asked')).toBeVisible();
  });

  test('a check that fails says why in red, and the next one that succeeds clears it', async () => {
    await page.goto(webhookPath);
    const card = connectionOf(page);
    // The token is revoked on GitHub's side.
    fake.tokens.delete(adminToken);
    await card.getByRole('button', { name: 'Check now' }).click();
    const failed = card.getByRole('alert').filter({ hasText: 'The last check failed' });
    await expect(failed).toContainText('GitHub refused the API token (HTTP 401): it is wrong, expired or revoked.', { timeout: budget(60_000) });
    await expect(failed).toContainText(/Tripline tries again in \d+ (s|min)/);
    await expect(card.getByText('Failing', { exact: true })).toBeVisible();
    await shoot(card, 'connection-failed-card');

    fake.tokens.set(adminToken, 'admin');
    await card.getByRole('button', { name: 'Check now' }).click();
    await expect(card.getByText('Connected', { exact: true })).toBeVisible({ timeout: budget(60_000) });
    await expect(failed).toHaveCount(0);
  });

  test('Edit shows the connection in the form; the rotate dialog says GitHub gets the new secret in the same step', async () => {
    await page.goto(webhookPath);
    const card = connectionOf(page);
    await card.getByRole('button', { name: 'Edit' }).click();
    const form = card.getByRole('form', { name: 'Connect to GitHub' });
    await expect(form.getByRole('textbox', { name: /^Repository/ })).toHaveValue(target);
    await expect(form.getByLabel('API base URL')).toHaveValue(fake.url);
    await expect(form.getByLabel('API credential')).toHaveValue('GH_HOOKS_TOKEN');
    await expect(form.getByLabel('Event types')).toHaveValue('issues');
    // Saving with one more event type updates GitHub's hook in place.
    await form.getByLabel('Event types').fill('issues, push');
    await form.getByRole('button', { name: 'Save connection' }).click();
    await expect(form).toHaveCount(0);
    await expect(card.getByRole('list', { name: 'Event types' }).getByRole('listitem')).toHaveText(['issues', 'push']);
    expect(fake.hooks.get(hookId)!.events).toEqual(['issues', 'push']);
    rememberSecrets(fake.hooks.get(hookId)!.config.secret!);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Rotate this webhook’s secret?' });
    await expect(dialog).toContainText('GitHub’s hook gets the new secret in the same step');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('a viewer sees the connection and its last check, and no way to change it', async ({ browser }) => {
    const viewerPage = await (await browser.newContext()).newPage();
    await signIn(viewerPage, viewer.email, viewer.password);
    await viewerPage.goto(webhookPath);
    const card = connectionOf(viewerPage);
    await expect(detail(card, 'Hook')).toContainText(String(hookId));
    await expect(detail(card, 'Recovered')).toContainText('Last 7 days: 3 deliveries recovered');
    await expect(card.getByRole('button')).toHaveCount(0);
    await viewerPage.context().close();
  });

  test('Disconnect asks whether to delete GitHub’s hook, and with it checked the hook is gone', async () => {
    await page.goto(webhookPath);
    const card = connectionOf(page);
    await card.getByRole('button', { name: 'Disconnect' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Disconnect this webhook from GitHub?' });
    const deleteHook = dialog.getByRole('checkbox', { name: 'Also delete the hook on GitHub' });
    await expect(deleteHook).not.toBeChecked();
    await expect(dialog).toContainText('The hook stays on GitHub and keeps sending deliveries here');
    await deleteHook.check();
    await expect(dialog).toContainText('GitHub stops sending deliveries to this webhook');
    await shoot(dialog, 'connection-disconnect-dialog');
    expect(await axeViolations(page, 'disconnect dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Disconnect' }).click();

    await expect(card.getByRole('button', { name: 'Connect to GitHub…' })).toBeVisible();
    expect(fake.hooks.has(hookId)).toBe(false);
    // The log keeps its recovered entries and their marker.
    await expect(logOf(page).getByText('Recovered from GitHub')).toHaveCount(3);
  });

  test('on a factory kept in definition files, the card points to the webhook’s file instead of offering the form', async () => {
    await page.goto(`/f/${factory.slug}/settings`);
    await page.getByRole('radio', { name: /^Managed definition files/ }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('heading', { name: 'Definition files', exact: true })).toBeVisible();

    await page.goto(webhookPath);
    const card = connectionOf(page);
    await expect(card).toContainText('Not connected. This factory keeps its webhooks in definition files: to connect it, add a connection section to the webhook’s definition file and apply it.');
    await expect(card.getByRole('button')).toHaveCount(0);
  });
});
