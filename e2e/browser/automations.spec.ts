import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { createWebhook as createWebhookIn, screenshot, signIn, useFactoryPage } from './helpers';

// Automations in the dashboard, on this spec's own factory and accounts: an
// admin creates a webhook and an automation with a payload filter on it
// (checked as it is typed), real deliveries to the ingress URL, Test filter
// against a matching and a non-matching delivery (unsaved edits included),
// the one run the matching delivery started, executed by the e2e servers'
// agent (e2e/fixtures/agent.mjs) to Succeeded, its page with the envelope
// and the payload; then a viewer's read-only view, a server field error
// next to its field, and a trigger whose webhook was deleted.

const admin = { name: 'Ari Admin', email: 'ari@automations.test', password: 'ari password 1234' };
const viewer = { name: 'Val Viewer', email: 'val@automations.test', password: 'val password 1234' };
const factory = { name: 'Automation Works', slug: 'automation-works' };
const base = `/f/${factory.slug}/automations`;

const matching = { action: 'opened', issue: { number: 7, title: 'Crash on save', labels: ['bug', 'ui'] } };
const notMatching = { action: 'closed', issue: { number: 8, title: 'Typo in README', labels: ['docs'] } };

const triggerOf = (page: Page, n: number) => page.locator(`li[aria-label="Trigger ${n}"]`);
const testPanelOf = (trigger: Locator) => trigger.getByRole('region', { name: 'Test filter', exact: true });
const createWebhook = (page: Page, name: string) => createWebhookIn(page, factory.slug, name);

/** Picks the delivery whose ID is `deliveryId` in a trigger's Test filter and runs it. */
async function testAgainst(panel: Locator, deliveryId: string): Promise<Locator> {
  const select = panel.getByLabel('Delivery');
  const value = await select.locator('option', { hasText: deliveryId }).getAttribute('value');
  await select.selectOption(value!);
  await panel.getByRole('button', { name: 'Test filter' }).click();
  const result = panel.getByRole('status', { name: 'Test filter result' });
  await expect(result).toContainText(deliveryId);
  return result;
}

test.describe.serial('automations', () => {
  let page: Page;
  let issues = { url: '', secret: '' };
  let automationPath = '';

  const post = (request: APIRequestContext, body: unknown, deliveryId: string) =>
    request.post(issues.url, {
      data: Buffer.from(JSON.stringify(body)),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${issues.secret}`, 'X-Service-Delivery-Id': deliveryId },
    });

  useFactoryPage({ admin, factory, member: viewer, role: 'viewer' }, (opened) => (page = opened));

  test('an admin creates an automation whose payload filter is checked as it is typed', async () => {
    issues = await createWebhook(page, 'issues');
    await createWebhook(page, 'spare');

    await page.goto(base);
    await expect(page.getByRole('heading', { name: 'No automations yet' })).toBeVisible();
    await page.getByRole('link', { name: 'New automation' }).click();
    await expect(page).toHaveURL(`${base}/new`);

    const form = page.getByRole('form', { name: 'New automation' });
    // Submitting empty puts each problem next to its field.
    await form.getByRole('button', { name: 'Create automation' }).click();
    await expect(form.getByRole('textbox', { name: 'Name' })).toHaveAccessibleDescription(/Enter a name/);
    await expect(form.getByLabel('Prompt')).toHaveAccessibleDescription(/Write the prompt/);
    await expect(triggerOf(page, 1).getByLabel('Webhook')).toHaveAccessibleDescription(/Pick the webhook/);

    await form.getByRole('textbox', { name: 'Name' }).fill('Triage bugs');
    await form.getByLabel('Prompt').fill('Label the issue in event-payload.json and suggest an owner.');
    const trigger = triggerOf(page, 1);
    // Picked by name, stored by UID.
    await trigger.getByLabel('Webhook').selectOption({ label: 'issues' });
    expect(await trigger.getByLabel('Webhook').inputValue()).toMatch(/^wh_/);

    const filter = trigger.getByLabel('Payload filter');
    await filter.fill('{"action": "opened",}');
    await expect(filter).toHaveAttribute('aria-invalid', 'true');
    await expect(filter).toHaveAccessibleDescription(/Not valid JSON at line 1, column 21: remove the comma before \}/);
    await filter.fill('{"action": {"$eq": "opened"}}');
    await expect(filter).toHaveAccessibleDescription(/At "action": unknown operator "\$eq"/);
    await screenshot(page, 'automations-filter-error');
    await filter.fill('{\n  "action": ["opened", "reopened"],\n  "issue": { "labels": "bug" }\n}');
    await expect(filter).not.toHaveAttribute('aria-invalid');

    await form.getByRole('button', { name: 'Create automation' }).click();
    await expect(page).toHaveURL(new RegExp(`${base}/c[a-z0-9]+$`));
    automationPath = new URL(page.url()).pathname;
    await expect(page.getByRole('heading', { name: 'Triage bugs', level: 1 })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Runs', exact: true }).getByText('No runs yet')).toBeVisible();
    await expect(triggerOf(page, 1).getByLabel('Payload filter')).toContainText('"reopened"');
  });

  test('Test filter shows why a delivery would or would not trigger, unsaved edits included', async ({ request }) => {
    expect((await post(request, matching, 'evt-issue-7')).status()).toBe(202);
    expect((await post(request, notMatching, 'evt-issue-8')).status()).toBe(202);

    await page.goto(automationPath);
    const panel = testPanelOf(triggerOf(page, 1));
    let result = await testAgainst(panel, 'evt-issue-7');
    await expect(result).toContainText('Would trigger');
    await expect(result).toContainText('Webhook: The delivery came to "issues".');
    await expect(result).toContainText('Payload filter: All 2 conditions matched.');
    await expect(result).toContainText('Automation: The automation is enabled.');

    result = await testAgainst(panel, 'evt-issue-8');
    await expect(result).toContainText('Would not trigger');
    await expect(result).toContainText('Payload filter: 2 of 2 conditions did not match.');
    const failed = result.locator('li[data-passed="false"]');
    await expect(failed).toHaveCount(2);
    await expect(failed.filter({ hasText: /^action:/ })).toHaveText('action: expected one of ["opened","reopened"], got "closed" (not in the list)');
    await expect(failed.filter({ hasText: /^issue\.labels:/ })).toHaveText('issue.labels: expected "bug", got ["docs"] (no element is equal)');
    await screenshot(page, 'automations-test-filter');

    // The trigger as written, not as saved: a result about the old text disappears at the first edit.
    await triggerOf(page, 1).getByLabel('Payload filter').fill('{"action": "closed"}');
    await expect(result).toHaveCount(0);
    result = await testAgainst(panel, 'evt-issue-8');
    await expect(result).toContainText('Would trigger');
    // Enabled off, unsaved: would not trigger, for that reason alone.
    await page.getByRole('switch', { name: 'Enabled' }).click();
    result = await testAgainst(panel, 'evt-issue-8');
    await expect(result).toContainText('Would not trigger');
    await expect(result).toContainText('Automation: The automation is disabled, so it starts no runs.');
  });

  test('the matching delivery started exactly one run, which the agent completed', async () => {
    await page.goto(automationPath);
    const runs = page.getByRole('region', { name: 'Runs', exact: true });
    const rows = runs.locator('tbody tr');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('evt-issue-7');
    // Queued or running runs refresh on their own.
    await expect(rows.first()).toContainText('Succeeded', { timeout: budget(20_000) });
    await screenshot(page, 'automations-editor');

    await rows.first().getByRole('link', { name: /^View/ }).click();
    await expect(page).toHaveURL(new RegExp(`${automationPath}/runs/[\\w-]+$`));
    await expect(page.getByRole('heading', { name: 'Run', level: 1 })).toBeVisible();
    const outcome = page.getByRole('region', { name: 'Outcome', exact: true });
    await expect(outcome).toContainText('agent: prompt has');
    await expect(outcome).toContainText(`agent: event-payload.json = ${JSON.stringify(matching)}`);
    await expect(page.getByRole('region', { name: 'Prompt', exact: true })).toContainText('Label the issue in event-payload.json and suggest an owner.');
    const envelope = page.getByRole('region', { name: 'Envelope', exact: true });
    await expect(envelope).toContainText('Webhook: "issues" (UID wh_');
    await expect(envelope).toContainText('Delivery ID: "evt-issue-7"');
    await expect(envelope).toContainText('untrusted context');
    await expect(envelope.getByTestId('json-tree')).toContainText('"evt-issue-7"');
    const payload = page.getByRole('region', { name: 'event-payload.json', exact: true });
    await expect(payload.getByTestId('json-tree')).toContainText('"Crash on save"');
    await expect(payload.getByRole('button', { name: 'Copy JSON' })).toBeVisible();
    await screenshot(page, 'automations-run');

    // The run links its delivery; the delivery lists the runs it started.
    await page.getByRole('link', { name: 'evt-issue-7' }).click();
    const started = page.getByRole('region', { name: 'Runs started by this delivery', exact: true });
    await expect(started.locator('tbody tr')).toHaveCount(1);
    await expect(started.locator('tbody tr').first()).toContainText('Triage bugs');
    await expect(started.locator('tbody tr').first()).toContainText('Succeeded');
    await screenshot(page, 'automations-delivery-runs');

    await page.goto(base);
    const row = page.locator('tbody tr', { hasText: 'Triage bugs' });
    await expect(row).toContainText('Enabled');
    await expect(row).toContainText('issues');
    await expect(row.locator('td').nth(3)).toHaveText('1');
    await screenshot(page, 'automations-list');
  });

  test('a server error lands next to its field: a webhook deleted while the editor was open', async () => {
    await page.goto(automationPath);
    await page.getByRole('button', { name: 'Add trigger' }).click();
    await triggerOf(page, 2).getByLabel('Webhook').selectOption({ label: 'spare' });

    const other = await page.context().newPage();
    await other.goto(`${base}/webhooks`);
    await other.getByRole('link', { name: 'spare' }).click();
    await other.getByRole('button', { name: 'Delete webhook' }).click();
    await other.getByRole('alertdialog').getByRole('button', { name: 'Delete webhook' }).click();
    await expect(other).toHaveURL(`${base}/webhooks`);
    await other.close();

    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(triggerOf(page, 2).getByLabel('Webhook')).toHaveAccessibleDescription(/The webhook "spare" was deleted; pick a live webhook/);
    await screenshot(page, 'automations-server-error');
    await triggerOf(page, 2).getByRole('button', { name: 'Remove trigger 2' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Saved', { exact: true })).toBeVisible();
  });

  test('a viewer reads the automation and its runs, tests filters, and changes nothing', async ({ browser }) => {
    const viewerPage = await (await browser.newContext()).newPage();
    await signIn(viewerPage, viewer.email, viewer.password);
    await viewerPage.goto(base);
    await expect(viewerPage.locator('tbody tr', { hasText: 'Triage bugs' })).toBeVisible();
    await expect(viewerPage.getByRole('link', { name: 'New automation' })).toHaveCount(0);

    await viewerPage.goto(automationPath);
    await expect(viewerPage.getByRole('heading', { name: 'Triage bugs', level: 1 })).toBeVisible();
    await expect(viewerPage.getByRole('textbox', { name: 'Name' })).toHaveAttribute('readonly', '');
    await expect(viewerPage.getByLabel('Prompt')).toHaveAttribute('readonly', '');
    await expect(triggerOf(viewerPage, 1).getByLabel('Payload filter')).toHaveAttribute('aria-readonly', 'true');
    await expect(triggerOf(viewerPage, 1).getByLabel('Payload filter')).toHaveAttribute('contenteditable', 'false');
    await expect(triggerOf(viewerPage, 1).getByLabel('Webhook')).toBeDisabled();
    await expect(viewerPage.getByRole('switch', { name: 'Enabled' })).toBeDisabled();
    for (const name of ['Save changes', 'Add trigger', /^Remove/, 'Delete automation']) {
      await expect(viewerPage.getByRole('button', { name })).toHaveCount(0);
    }
    const result = await testAgainst(testPanelOf(triggerOf(viewerPage, 1)), 'evt-issue-7');
    await expect(result).toContainText('Would trigger');
    await expect(viewerPage.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr')).toHaveCount(1);
    await screenshot(viewerPage, 'automations-viewer');

    await viewerPage.goto(`${base}/new`);
    await expect(viewerPage.getByRole('heading', { name: 'You need the editor role' })).toBeVisible();
    await viewerPage.context().close();
  });

  test('a trigger whose webhook was deleted stays visible, marked as never firing', async () => {
    await page.goto(`${base}/webhooks`);
    await page.getByRole('link', { name: 'issues' }).click();
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete webhook' }).click();
    await expect(page).toHaveURL(`${base}/webhooks`);

    await page.goto(base);
    await expect(page.locator('tbody tr', { hasText: 'Triage bugs' })).toContainText('Webhook deleted — never fires');
    await page.goto(automationPath);
    const trigger = triggerOf(page, 1);
    await expect(trigger).toContainText('Webhook deleted — never fires');
    await expect(trigger.getByLabel('Webhook')).toHaveAccessibleDescription(/The webhook issues was deleted: this trigger never fires/);
    await expect(testPanelOf(trigger)).toContainText('was deleted, so this trigger never fires');
    // The deleted webhook's log is closed: its run names the delivery without a link that would 404.
    const run = page.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr').first();
    await expect(run).toContainText('evt-issue-7');
    await expect(run).toContainText('to issues (deleted)');
    await expect(run.getByRole('link', { name: 'evt-issue-7' })).toHaveCount(0);
    // Kept as it was, the trigger saves: only a new trigger cannot pick a deleted webhook.
    await page.getByRole('textbox', { name: 'Name' }).fill('Triage bugs (paused)');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Saved', { exact: true })).toBeVisible();
    await screenshot(page, 'automations-deleted-webhook');

    await page.getByRole('button', { name: 'Delete automation' }).click();
    const dialog = page.getByRole('alertdialog');
    await expect(dialog).toContainText('Its run is deleted too.');
    await dialog.getByRole('button', { name: 'Delete automation' }).click();
    await expect(page).toHaveURL(base);
    await expect(page.getByRole('heading', { name: 'No automations yet' })).toBeVisible();
  });
});
