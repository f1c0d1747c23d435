import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import path from 'node:path';
import { budget } from '../../scripts/speed.mjs';
import { axeViolations, completeFirstRunIfNeeded, createWebhook, screenshot, setUpFactory, shotsDir, signIn } from './helpers';

// Run control in the automation editor, on this spec's own factory: off by
// default; turned on, a bad value is refused next to its field in the API's
// words; saved settings (periods typed in minutes) come back after a reload;
// a viewer sees them read-only; turned off, they are cleared.

const admin = { name: 'Rita Admin', email: 'rita@run-control.test', password: 'rita password 1234' };
const viewer = { name: 'Vic Viewer', email: 'vic@run-control.test', password: 'vic password 1234' };
const factory = { name: 'Run Control Works', slug: 'run-control-works' };
const base = `/f/${factory.slug}/automations`;

test.describe.serial('run control in the editor', () => {
  let page: Page;
  let automationPath = '';
  let hook = { url: '', secret: '', uid: '' };
  const post = (request: APIRequestContext, body: unknown, deliveryId: string) =>
    request.post(hook.url, {
      data: Buffer.from(JSON.stringify(body)),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${hook.secret}`, 'X-Service-Delivery-Id': deliveryId },
    });

  test.beforeAll(async ({ browser }) => {
    await completeFirstRunIfNeeded(browser);
    page = await setUpFactory(browser, { admin, factory, member: viewer, role: 'viewer' });
  });

  test.afterAll(async () => {
    await page.context().close();
  });

  test('an admin sets run control, sees a bad value refused next to its field, and saves', async () => {
    hook = await createWebhook(page, factory.slug, 'pulls');
    await page.goto(`${base}/new`);
    const form = page.getByRole('form', { name: 'New automation' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Review pull requests');
    await form.getByLabel('Prompt').fill('Review the pull request in event-payload.json.');
    await page.locator('li[aria-label="Trigger 1"]').getByLabel('Webhook').selectOption({ label: 'pulls' });

    const section = page.getByRole('region', { name: 'Run control' });
    const use = section.getByRole('switch', { name: 'Use run control' });
    await expect(use).toHaveAttribute('aria-checked', 'false');
    await expect(section.getByLabel('Key')).toHaveCount(0);
    await use.click();

    await section.getByRole('textbox', { name: 'Key' }).fill('repository.full_name, pull_request.number');
    // Concurrency is on once run control is; a limit of 0 is refused in the schema's words, next to the field.
    await expect(section.getByRole('switch', { name: 'Concurrency' })).toHaveAttribute('aria-checked', 'true');
    const limit = section.getByRole('textbox', { name: 'Runs in progress' });
    await limit.fill('0');
    await section.getByRole('radio', { name: 'Cancel running' }).check();
    await section.getByRole('switch', { name: 'Debounce' }).click();
    await section.getByRole('textbox', { name: 'Quiet period' }).fill('2');
    await section.getByLabel('Quiet period: unit').selectOption('minutes');
    await section.getByRole('textbox', { name: 'Maximum wait' }).fill('1');
    await section.getByLabel('Maximum wait: unit').selectOption('minutes');
    await form.getByRole('button', { name: 'Create automation' }).click();
    await expect(limit).toHaveAccessibleDescription(/The concurrency limit is at least 1/);
    await expect(section.getByRole('textbox', { name: 'Maximum wait' })).toHaveAccessibleDescription(/The maximum wait cannot be shorter than the debounce period/);
    await expect(page).toHaveURL(`${base}/new`);
    await screenshot(page, 'run-control-errors');

    await limit.fill('2');
    await section.getByRole('textbox', { name: 'Maximum wait' }).fill('10');
    await section.getByRole('switch', { name: 'Throttle or rate limit' }).click();
    await section.getByRole('radio', { name: 'Rate limit' }).check();
    await section.getByRole('textbox', { name: 'Runs', exact: true }).fill('5');
    await section.getByRole('textbox', { name: 'Per', exact: true }).fill('1');
    await section.getByLabel('Per: unit', { exact: true }).selectOption('hours');
    expect(await axeViolations(page, 'run control')).toEqual([]);
    await screenshot(page, 'run-control-editor');
    await form.getByRole('button', { name: 'Create automation' }).click();
    await expect(page).toHaveURL(new RegExp(`${base}/c[a-z0-9]+$`));
    automationPath = new URL(page.url()).pathname;

    // Saved as the API stores it, and read back into the same fields.
    await page.reload();
    const saved = page.getByRole('region', { name: 'Run control' });
    await expect(saved.getByRole('switch', { name: 'Use run control' })).toHaveAttribute('aria-checked', 'true');
    await expect(saved.getByRole('textbox', { name: 'Key' })).toHaveValue('repository.full_name, pull_request.number');
    await expect(saved.getByRole('textbox', { name: 'Runs in progress' })).toHaveValue('2');
    await expect(saved.getByRole('radio', { name: 'Cancel running' })).toBeChecked();
    await expect(saved.getByRole('textbox', { name: 'Quiet period' })).toHaveValue('2');
    await expect(saved.getByLabel('Quiet period: unit')).toHaveValue('minutes');
    await expect(saved.getByRole('textbox', { name: 'Maximum wait' })).toHaveValue('10');
    await expect(saved.getByRole('radio', { name: 'Rate limit' })).toBeChecked();
    await expect(saved.getByRole('textbox', { name: 'Per', exact: true })).toHaveValue('1');
    await expect(saved.getByLabel('Per: unit', { exact: true })).toHaveValue('hours');
    // The runs list names each run's key once the automation has run control.
    await expect(page.getByRole('region', { name: 'Runs' })).toContainText('Each stands for one matching delivery');
  });

  test('a viewer sees the settings read-only', async ({ browser }) => {
    const context = await browser.newContext();
    const viewerPage = await context.newPage();
    await signIn(viewerPage, viewer.email, viewer.password);
    await viewerPage.goto(automationPath);
    const section = viewerPage.getByRole('region', { name: 'Run control' });
    await expect(section.getByRole('switch', { name: 'Use run control' })).toBeDisabled();
    await expect(section.getByRole('textbox', { name: 'Key' })).toHaveAttribute('readonly', '');
    await expect(section.getByRole('radio', { name: 'Cancel running' })).toBeDisabled();
    await expect(viewerPage.getByRole('button', { name: 'Save changes' })).toHaveCount(0);
    await context.close();
  });

  test('Test filter says what the saved run control would do with the delivery now', async ({ request }) => {
    const testFilter = () => page.locator('li[aria-label="Trigger 1"]').getByRole('region', { name: 'Test filter' });
    const runControlRow = () => testFilter().getByRole('status', { name: 'Test filter result' }).getByRole('listitem', { name: 'Run control' });

    // Debounce first: a push joins its group's burst, which runs once the quiet period after the last push is over.
    expect((await post(request, { repository: { full_name: 'acme/app' }, pull_request: { number: 7 } }, 'pr-7-push-1')).status()).toBe(202);
    await page.goto(automationPath);
    await expect(testFilter().getByLabel('Delivery')).toContainText('pr-7-push-1');
    await testFilter().getByRole('button', { name: 'Test filter' }).click();
    await expect(runControlRow()).toContainText(/Run control: Would be debounced until \w{3} \d+/);
    await expect(runControlRow()).toContainText('Group "acme/app", 7. From the saved settings and the group’s runs right now');
    await expect(runControlRow()).not.toContainText('Save your run control edits');

    // Unsaved edits are not what it previews, and it says so.
    const section = page.getByRole('region', { name: 'Run control' });
    await section.getByRole('switch', { name: 'Debounce' }).click();
    await section.getByRole('switch', { name: 'Throttle or rate limit' }).click();
    await section.getByRole('textbox', { name: 'Runs in progress' }).fill('1');
    await section.getByRole('radio', { name: 'Queue newest' }).check();
    await testFilter().getByRole('button', { name: 'Test filter' }).click();
    await expect(runControlRow()).toContainText('Save your run control edits to preview them.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Saved', { exact: true })).toBeVisible();

    // One run at a time per pull request: a run that works until it is stopped holds PR 8's slot.
    expect((await post(request, { repository: { full_name: 'acme/app' }, pull_request: { number: 8 }, sleeper: true }, 'pr-8-push-1')).status()).toBe(202);
    await page.goto(automationPath);
    await expect(testFilter().getByLabel('Delivery')).toContainText('pr-8-push-1');
    await testFilter().getByRole('button', { name: 'Test filter' }).click();
    await expect(runControlRow()).toContainText(/Run control: Would wait behind run run_[A-Za-z0-9]+/);
    await expect(runControlRow()).toContainText('Group "acme/app", 8');
    await expect(testFilter().getByRole('status', { name: 'Test filter result' })).toContainText('Would trigger');
    await runControlRow().scrollIntoViewIfNeeded();
    await screenshot(page, 'test-filter-run-control');
    await testFilter().screenshot({ path: path.join(shotsDir, 'test-filter-run-control-panel.png') });

    // The run it names is a link to its page, where it can be stopped.
    const runId = (await runControlRow().getByRole('link').textContent())!;
    await runControlRow().getByRole('link', { name: runId }).click();
    await expect(page).toHaveURL(`${automationPath}/runs/${runId}`);
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Cancel run' }).click();
    await expect(page.getByRole('region', { name: 'Outcome' }).getByText('The run was cancelled', { exact: true })).toBeVisible({ timeout: budget(30_000) });
  });

  test('turned off and saved, run control is cleared', async () => {
    await page.goto(automationPath);
    const section = page.getByRole('region', { name: 'Run control' });
    await section.getByRole('switch', { name: 'Use run control' }).click();
    await expect(section.getByRole('textbox', { name: 'Key' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Saved', { exact: true })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('region', { name: 'Run control' }).getByRole('switch', { name: 'Use run control' })).toHaveAttribute('aria-checked', 'false');
  });
});
