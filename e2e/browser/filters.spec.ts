import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { createWebhook, screenshot, signIn, useFactoryPage } from './helpers';

// Filters written from real payloads (docs/filters.md, The field catalogue,
// The editor, Filter on this): deliveries arrive and the webhook's Fields card
// lists their paths; the code editor completes field names and values from
// them and counts matches live, as Backtest does; "Filter on this" on a nested
// value of a delivery opens a new automation, or a saved trigger, with the
// condition merged in and nothing saved; Test filter against a pasted body.
// A viewer sees no "Filter on this".

const admin = { name: 'Fay Filter', email: 'fay@filters.test', password: 'fay password 1234' };
const viewer = { name: 'Vic Viewer', email: 'vic@filters.test', password: 'vic password 1234' };
const factory = { name: 'Filter Works', slug: 'filter-works' };
const base = `/f/${factory.slug}/automations`;

const order = (action: string, tier: string, skus: string[]) => ({
  action,
  order: { id: `o-${Math.random().toString(36).slice(2, 8)}`, customer: { tier, email: 'ana@example.com' }, items: skus.map((sku) => ({ sku })) },
  api_token: 'tok_never_shown_as_a_value',
});
const deliveries = [
  order('created', 'gold', ['A-1']),
  order('created', 'silver', ['A-1', 'B-7']),
  order('created', 'gold', ['C-3']),
  order('cancelled', 'silver', ['B-7']),
  order('cancelled', 'bronze', ['A-1']),
];

const triggerOf = (page: Page, n: number) => page.locator(`li[aria-label="Trigger ${n}"]`);
const editorOf = (page: Page, n = 1) => triggerOf(page, n).getByRole('textbox', { name: 'Payload filter' });
const completions = (page: Page) => page.getByRole('listbox');

test.use({ viewport: { width: 1440, height: 900 } });

test.describe.serial('filters written from real payloads', () => {
  let page: Page;
  let hook = { url: '', secret: '', uid: '' };

  const post = (request: APIRequestContext, body: unknown, deliveryId: string) =>
    request.post(hook.url, {
      data: Buffer.from(JSON.stringify(body)),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${hook.secret}`, 'X-Service-Delivery-Id': deliveryId },
    });

  useFactoryPage({ admin, factory, member: viewer, role: 'viewer' }, (opened) => (page = opened));

  test('deliveries arrive and the Fields card lists their paths, types, presence and values', async ({ request }) => {
    hook = await createWebhook(page, factory.slug, 'orders');
    for (const [index, body] of deliveries.entries()) expect((await post(request, body, `ord-${index + 1}`)).status()).toBe(202);

    await page.goto(`${base}/webhooks/${hook.uid}`);
    const card = page.getByRole('region', { name: 'Fields' });
    await expect(card).toContainText('The fields of the latest 5 accepted deliveries');
    const row = (path: string) => card.getByRole('row').filter({ has: page.getByRole('cell', { name: path, exact: true }) });
    for (const path of ['action', 'order.customer.tier', 'order.items[].sku', 'api_token']) await expect(row(path)).toHaveCount(1);
    await expect(row('action')).toContainText('string');
    await expect(row('action')).toContainText('100%');
    await expect(row('action').getByRole('list', { name: 'Top values of action' })).toHaveText('"created"×3"cancelled"×2');
    await expect(row('order.items[].sku').getByRole('listitem').first()).toHaveText('"A-1"×3');
    // A field whose name looks like a secret never shows its values.
    await expect(row('api_token')).toContainText('Hidden: the name looks like a secret');
    await expect(card).not.toContainText('tok_never_shown_as_a_value');
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'filters-fields-card');
  });

  test('typing {"act in the editor offers action with its values; the live count agrees with Backtest', async () => {
    await page.goto(`${base}/new`);
    const editor = editorOf(page);
    await expect(editor).toBeVisible();
    await editor.click();
    await page.keyboard.type('{"act');
    const list = completions(page);
    const action = list.getByRole('option', { name: /^action/ });
    // The catalogue loads after the page: typed before it arrived (a loaded machine), the list
    // opens on Ctrl+Space, as its hint says.
    await expect(async () => {
      if (!(await action.isVisible())) await page.keyboard.press('Control+Space');
      await expect(action).toBeVisible({ timeout: budget(2_000) });
    }).toPass({ timeout: budget(30_000) });
    // With its values, most frequent first.
    await expect(action).toContainText('string · 100% · "created", "cancelled"');
    await screenshot(page, 'filters-editor-completes-fields');

    await page.keyboard.press('Enter');
    // Picking the field offers its values next.
    await expect(list.getByRole('option', { name: '"created"' })).toBeVisible();
    await expect(list.getByRole('option', { name: '"cancelled"' })).toBeVisible();
    await expect(list.getByRole('option', { name: '{"in": [...]}' })).toBeVisible();
    await screenshot(page, 'filters-editor-completes-values');
    await page.keyboard.press('Enter');
    await expect(editor).toHaveText('{"action": "created"}');

    // The live count, evaluated on the server, and Backtest over the same deliveries say the same.
    const count = triggerOf(page, 1).getByRole('status', { name: 'Live count' });
    await expect(count).toHaveText('Matches 3 of the last 5 deliveries');
    const backtest = triggerOf(page, 1).getByRole('region', { name: 'Backtest' });
    await backtest.getByRole('button', { name: 'Backtest' }).click();
    await expect(backtest.getByRole('status', { name: 'Backtest result' })).toContainText(/\b3 of 5\b/);

    // Keyboard: Ctrl+Space asks, Escape closes the list and keeps the focus, Tab then leaves the editor.
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Control+Space');
    await expect(completions(page)).toHaveCount(0); // after a finished value nothing is offered
    await page.keyboard.type(', "order": {"cu');
    await expect(completions(page).getByRole('option', { name: /^customer/ })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(completions(page)).toHaveCount(0);
    await expect(editor).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(editor).not.toBeFocused();

    // Validation stays inline, next to the field, as it is typed.
    await expect(editor).toHaveAttribute('aria-invalid', 'true');
    await expect(editor).toHaveAccessibleDescription(/Not valid JSON/);
    await expect(count).toHaveText('Fix the filter to see how many deliveries it matches.');
    await editor.fill('{"action": "cancelled", "order": {"customer": {"tier": ["silver", "bronze"]}}}');
    await expect(editor).not.toHaveAttribute('aria-invalid');
    await expect(count).toHaveText('Matches 2 of the last 5 deliveries');
  });

  test('Filter on this on a nested value opens a new automation whose filter holds the condition', async () => {
    await page.goto(`${base}/webhooks/${hook.uid}`);
    // The oldest delivery (gold, A-1): the last row of the log.
    await page.getByRole('region', { name: 'Deliveries', exact: true }).getByRole('link', { name: 'View delivery ord-1' }).click();
    await page.getByRole('button', { name: 'Expand all' }).click();
    const tier = page.getByTestId('json-tree').locator('div.group\\/row', { hasText: '"tier":' });
    await tier.hover();
    await tier.getByRole('button', { name: 'Filter on order.customer.tier' }).click();
    const menu = page.getByRole('group', { name: 'Filter on this' });
    await expect(menu).toContainText('"order" › "customer" › "tier" = "gold"');
    await screenshot(page, 'filters-filter-on-this');
    await menu.getByRole('link', { name: 'New automation with this condition' }).click();

    await expect(page).toHaveURL(new RegExp(`${base}/new\\?webhook=`));
    await expect(triggerOf(page, 1).getByLabel('Webhook')).toHaveValue(hook.uid);
    const editor = editorOf(page);
    await expect(editor).toHaveText('{  "order": {    "customer": {      "tier": "gold"    }  }}');
    await expect(triggerOf(page, 1).getByRole('status', { name: 'Live count' })).toHaveText('Matches 2 of the last 5 deliveries');

    // Nothing was saved: it is saved like any new automation.
    await page.getByRole('textbox', { name: 'Name' }).fill('Gold orders');
    await page.getByLabel('Prompt').fill('Thank the gold customer.');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await expect(page.getByRole('heading', { name: 'Gold orders', level: 1 })).toBeVisible();
  });

  test('Filter on this adds to a trigger of an automation on this webhook, merged and unsaved', async () => {
    await page.goBack();
    await page.goBack();
    await page.reload();
    await page.getByRole('button', { name: 'Expand all' }).click();
    const sku = page.getByTestId('json-tree').locator('div.group\\/row', { hasText: '"sku":' }).first();
    await sku.hover();
    await sku.getByRole('button', { name: 'Filter on order.items.sku' }).click();
    await page.getByRole('group', { name: 'Filter on this' }).getByRole('link', { name: 'Add to a trigger of Gold orders' }).click();

    await expect(page.getByRole('heading', { name: 'Gold orders', level: 1 })).toBeVisible();
    const editor = editorOf(page);
    await expect(editor).toHaveText('{  "order": {    "customer": {      "tier": "gold"    },    "items": {      "sku": "A-1"    }  }}');
    await expect(page.getByText('Unsaved changes')).toBeVisible();
    await expect(triggerOf(page, 1).getByRole('status', { name: 'Live count' })).toHaveText('Matches 1 of the last 5 deliveries');

    // Leaving without saving keeps the saved filter.
    await page.goto(new URL(page.url()).pathname);
    await expect(editorOf(page)).not.toContainText('"sku"');
  });

  test('Test filter against a pasted body: it must be JSON the ingress would accept', async () => {
    await expect(page.getByRole('heading', { name: 'Gold orders', level: 1 })).toBeVisible();
    const panel = triggerOf(page, 1).getByRole('region', { name: 'Test filter', exact: true });
    await panel.getByRole('button', { name: 'A pasted body' }).click();
    const body = panel.getByLabel('Body');
    await panel.getByRole('button', { name: 'Test filter' }).click();
    await expect(body).toHaveAccessibleDescription(/Paste a JSON body to test/);
    await body.fill("{'order': 1}");
    await panel.getByRole('button', { name: 'Test filter' }).click();
    await expect(body).toHaveAttribute('aria-invalid', 'true');
    await expect(body).toHaveAccessibleDescription(/use double quotes/);
    await body.fill(JSON.stringify({ ...order('created', 'bronze', ['Z-9']) }, null, 2));
    await panel.getByRole('button', { name: 'Test filter' }).click();
    let result = panel.getByRole('status', { name: 'Test filter result' });
    await expect(result).toContainText('Would not trigger');
    await expect(result).toContainText('the pasted body');
    await expect(result).toContainText('order.customer.tier: expected "gold", got "bronze"');
    await body.fill(JSON.stringify({ ...order('created', 'gold', ['Z-9']) }, null, 2));
    await panel.getByRole('button', { name: 'Test filter' }).click();
    result = panel.getByRole('status', { name: 'Test filter result' });
    await expect(result).toContainText('Would trigger');
    await expect(result).toContainText('The pasted body is tested as a delivery to "orders".');
    await result.scrollIntoViewIfNeeded();
    await screenshot(page, 'filters-test-pasted-body');
    // Larger than the ingress accepts: refused next to the field.
    await body.fill(JSON.stringify({ pad: 'x'.repeat(262_144) }));
    await panel.getByRole('button', { name: 'Test filter' }).click();
    await expect(body).toHaveAccessibleDescription(/the ingress accepts at most 262,144 bytes \(256 KB\)/);
  });

  test('a viewer sees no Filter on this', async ({ browser }) => {
    const viewerPage = await (await browser.newContext()).newPage();
    await signIn(viewerPage, viewer.email, viewer.password);
    await viewerPage.goto(`${base}/webhooks/${hook.uid}`);
    await viewerPage.getByRole('region', { name: 'Deliveries', exact: true }).getByRole('link', { name: 'View delivery ord-1' }).click();
    await expect(viewerPage.getByTestId('json-tree')).toContainText('"action"');
    await expect(viewerPage.getByRole('button', { name: /^Filter on/ })).toHaveCount(0);
    await viewerPage.context().close();
  });
});
