import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { completeFirstRunIfNeeded, screenshot, setUpFactory, signIn } from './helpers';

// The delivery log in the dashboard, on this spec's own factory and
// accounts: real requests to a bearer-token webhook's ingress URL, then the
// log (labels, newest first, live updates without a reload, status filter,
// search, pages) and an entry's page (JSON viewer and redacted headers for
// an accepted delivery, metadata only for the others), for an admin and a
// viewer.

const admin = { name: 'Dana Admin', email: 'dana@deliveries.test', password: 'dana password 123' };
const viewer = { name: 'Vic Viewer', email: 'vic@deliveries.test', password: 'vic password 1234' };
const factory = { name: 'Delivery Desk', slug: 'delivery-desk' };
const webhooksPath = `/f/${factory.slug}/automations/webhooks`;

// An order event, as its sender formats it: the log must give back these exact bytes.
const orderBody = `{
  "event": "order.created",
  "order": {
    "id": "ord_1001",
    "total": 129.90,
    "paid": true,
    "coupon": null,
    "customer": { "name": "Ada Lovelace", "email": "ada@example.test" },
    "items": [
      { "sku": "TEA-01", "qty": 2 },
      { "sku": "MUG-07", "qty": 1 }
    ]
  }
}`;

const logOf = (page: Page) => page.getByRole('region', { name: 'Deliveries', exact: true });
const rowsOf = (page: Page) => logOf(page).locator('tbody tr');
const rowFor = (page: Page, deliveryId: string) => logOf(page).locator(`tbody tr[data-delivery-id="${deliveryId}"]`);

async function expectLabels(rows: Locator, labels: string[]): Promise<void> {
  await expect(rows).toHaveCount(labels.length);
  for (const [index, label] of labels.entries()) {
    await expect(rows.nth(index).locator('td').first()).toHaveText(label);
  }
}

test.describe.serial('the delivery log', () => {
  let page: Page;
  let url = '';
  let secret = '';
  let webhookPath = '';

  // A Buffer goes out byte for byte (Playwright would JSON-encode a string that is not JSON).
  const post = (request: APIRequestContext, body: string, headers: Record<string, string> = {}) =>
    request.post(url, { data: Buffer.from(body), headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}`, ...headers } });

  test.beforeAll(async ({ browser }) => {
    await completeFirstRunIfNeeded(browser);

    page = await setUpFactory(browser, {
      admin,
      factory,
      member: viewer,
      role: 'viewer',
      contextOptions: { permissions: ['clipboard-read', 'clipboard-write'] },
    });
  });

  test.afterAll(async () => {
    await page.context().close();
  });

  test('a new webhook has an empty log that shows how to send a test request, without the secret', async () => {
    await page.goto(`${webhooksPath}/new`);
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('orders');
    await expect(form.getByRole('radio', { name: 'Bearer token' })).toBeChecked();
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
    url = await page.getByLabel('Ingress URL').inputValue();
    secret = await page.getByLabel('Secret', { exact: true }).inputValue();
    expect(secret.length).toBeGreaterThanOrEqual(32);

    await page.getByRole('link', { name: 'Go to webhook' }).click();
    await expect(page.getByRole('heading', { name: 'orders', level: 1 })).toBeVisible();
    webhookPath = new URL(page.url()).pathname;
    const log = logOf(page);
    await expect(log.getByRole('heading', { name: 'No deliveries yet' })).toBeVisible();
    await expect(log.locator('pre')).toContainText(`curl -X POST '${url}'`);
    await expect(log.locator('pre')).toContainText(`-H 'Authorization: Bearer <secret>'`);
    await expect(log.getByText('Live', { exact: true })).toBeVisible();
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, 'deliveries-empty');
  });

  test('every request that reaches the webhook is logged, newest first, with its label', async ({ request }) => {
    expect((await post(request, orderBody, { 'X-Service-Delivery-Id': 'evt-order-1001' })).status()).toBe(202);
    expect((await post(request, '{"order": {"id": "ord_1002",')).status()).toBe(400);
    expect((await post(request, '{"hello":"world"}', { Authorization: 'Bearer not-the-secret' })).status()).toBe(401);
    expect((await post(request, 'x'.repeat(300 * 1024))).status()).toBe(413);
    const retried = JSON.stringify({ event: 'order.paid', order: { id: 'ord_1003' } });
    expect((await post(request, retried, { 'X-Service-Delivery-Id': 'evt-order-1003' })).status()).toBe(202);
    const again = await post(request, retried, { 'X-Service-Delivery-Id': 'evt-order-1003' });
    expect(again.status()).toBe(202);
    expect(await again.json()).toEqual({ delivery_id: 'evt-order-1003' });

    await page.goto(webhookPath);
    const rows = rowsOf(page);
    await expectLabels(rows, ['Duplicate', 'Accepted', 'Rejected (too large)', 'Rejected (auth)', 'Rejected (invalid JSON)', 'Accepted']);
    await expect(rows.nth(0)).toContainText('evt-order-1003');
    await expect(rows.nth(0)).toContainText('Identity already accepted.');
    await expect(rows.nth(3)).toContainText('Wrong bearer token.');
    await expect(rows.nth(5)).toContainText('evt-order-1001');
    // Sizes read as KB with the exact count in the title.
    await expect(rows.nth(2).getByTitle('307,200 bytes')).toHaveText('300 KB');
    await expect(rows.nth(5).getByTitle(`${Buffer.byteLength(orderBody).toLocaleString('en')} bytes`)).toBeVisible();
    await expect(rows.nth(0)).toContainText(/just now|\d+ s ago/);

    // While the page is open, a new delivery appears on its own: no reload, no navigation.
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
    expect((await post(request, JSON.stringify({ event: 'order.created', order: { id: 'ord_1004' } }))).status()).toBe(202);
    await expect(rows.nth(0)).toContainText('sha256:', { timeout: budget(12_000) });
    await expectLabels(rows, ['Accepted', 'Duplicate', 'Accepted', 'Rejected (too large)', 'Rejected (auth)', 'Rejected (invalid JSON)', 'Accepted']);
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
    await screenshot(page, 'deliveries-log');
  });

  test('the log filters by status and searches payloads and delivery IDs, in the URL', async () => {
    await page.goto(webhookPath);
    const rows = rowsOf(page);
    const status = logOf(page).getByLabel('Status');
    const search = logOf(page).getByRole('searchbox', { name: 'Search deliveries' });
    await expect(search).toHaveAttribute('placeholder', 'Search delivery ID or payload');

    await status.selectOption({ label: 'Rejected (auth)' });
    await expect(page).toHaveURL(/\?status=rejected_auth$/);
    await expectLabels(rows, ['Rejected (auth)']);
    await status.selectOption({ label: 'Accepted' });
    await expect(page).toHaveURL(/\?status=accepted$/);
    await expectLabels(rows, ['Accepted', 'Accepted', 'Accepted']);
    // Back undoes a status choice.
    await page.goBack();
    await expect(page).toHaveURL(/\?status=rejected_auth$/);
    await expect(status).toHaveValue('rejected_auth');
    await expectLabels(rows, ['Rejected (auth)']);

    await status.selectOption({ label: 'All statuses' });
    await expect(page).toHaveURL(new RegExp(`${webhookPath}$`));
    await expect(rows).toHaveCount(7);

    // Payload text, case-insensitively: only accepted entries keep a payload.
    await search.fill('ADA LOVELACE');
    await expect(page).toHaveURL(/\?q=ADA\+LOVELACE$/);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('evt-order-1001');

    // Delivery ID prefix: the accepted delivery and its duplicate.
    await search.fill('evt-order-1003');
    await expect(page).toHaveURL(/\?q=evt-order-1003$/);
    await expectLabels(rows, ['Duplicate', 'Accepted']);
    await status.selectOption({ label: 'Duplicate' });
    await expect(page).toHaveURL(/\?status=duplicate&q=evt-order-1003$/);
    await expectLabels(rows, ['Duplicate']);
    await screenshot(page, 'deliveries-filtered');

    // A shared link opens the same view.
    await page.goto(`${webhookPath}?status=accepted&q=ord_1004`);
    await expect(status).toHaveValue('accepted');
    await expect(search).toHaveValue('ord_1004');
    await expectLabels(rows, ['Accepted']);

    // Text without 3 letters or digits in a row matches delivery IDs only ("or" is in every payload here).
    await search.fill('or');
    await expect(page).toHaveURL(/\?status=accepted&q=or$/);
    await expect(logOf(page).getByText('Matched against delivery IDs only: payloads are searched for text with at least 3 letters or digits in a row.')).toBeVisible();
    await expect(logOf(page).getByText(/^No delivery ID matches “or”/)).toBeVisible();

    await search.fill('no-such-thing');
    await expect(logOf(page).getByText('No deliveries match')).toBeVisible();
    await expect(logOf(page).getByText('Matched against delivery IDs only', { exact: false })).toHaveCount(0);
    await screenshot(page, 'deliveries-no-match');
    await logOf(page).getByRole('link', { name: 'Clear filters' }).click();
    await expect(page).toHaveURL(new RegExp(`${webhookPath}#deliveries$`));
    await expect(rows).toHaveCount(7);
    await expect(search).toHaveValue('');
    await expect(status).toHaveValue('');
  });

  test('the log pages through older deliveries with a cursor', async ({ request }) => {
    for (let n = 1; n <= 20; n++) {
      expect((await post(request, JSON.stringify({ event: 'tick', n }), { 'X-Service-Delivery-Id': `tick-${String(n).padStart(2, '0')}` })).status()).toBe(202);
    }
    await page.goto(webhookPath);
    const rows = rowsOf(page);
    await expect(rows).toHaveCount(25);
    await expect(rows.first()).toContainText('tick-20');
    await expect(logOf(page).getByText('Live', { exact: true })).toBeVisible();
    await expect(logOf(page).getByRole('link', { name: 'Newest' })).toHaveCount(0);

    await logOf(page).getByRole('link', { name: 'Older' }).click();
    await expect(page).toHaveURL(/\?cursor=[\w-]+#deliveries$/);
    await expectLabels(rows, ['Rejected (invalid JSON)', 'Accepted']);
    await expect(rows.last()).toContainText('evt-order-1001');
    // Older pages hold still.
    await expect(logOf(page).getByText('Live', { exact: true })).toHaveCount(0);
    await expect(logOf(page).getByRole('link', { name: 'Older' })).toHaveCount(0);
    await screenshot(page, 'deliveries-older');
    await logOf(page).getByRole('link', { name: 'Newest' }).click();
    await expect(rows).toHaveCount(25);
    await expect(rows.first()).toContainText('tick-20');

    await page.goto(`${webhookPath}?cursor=not-a-cursor`);
    await expect(logOf(page).getByRole('alert')).toContainText('This page of the log is no longer available');
  });

  test('an accepted delivery shows its payload in a JSON viewer and its redacted headers', async () => {
    await page.goto(`${webhookPath}?q=evt-order-1001`);
    await rowFor(page, 'evt-order-1001').getByRole('link', { name: /^View/ }).click();
    await expect(page).toHaveURL(new RegExp(`${webhookPath}/deliveries/dl_\\w+$`));
    await expect(page.getByRole('heading', { name: 'Delivery', level: 1 })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toHaveText(/Automations.*Webhooks.*orders.*Delivery/);

    const details = page.locator('dl');
    const detail = (label: string) => details.locator('div').filter({ has: page.locator('dt', { hasText: label }) }).locator('dd');
    await expect(detail('Status')).toHaveText('Accepted');
    await expect(detail('Delivery ID')).toContainText('evt-order-1001');
    await expect(detail('Delivery ID').getByRole('button', { name: 'Copy delivery ID' })).toBeVisible();
    await expect(detail('Identity source')).toHaveText('X-Service-Delivery-Id');
    await expect(detail('Size')).toHaveText(`${Buffer.byteLength(orderBody)} bytes`);
    await expect(detail('Client address')).not.toBeEmpty();
    await expect(details.locator('dt', { hasText: 'Detail' })).toHaveCount(0);

    // The tree: keys in order, numbers as written, nested branches collapsible.
    const viewer = page.getByRole('region', { name: 'Payload' });
    const tree = viewer.getByTestId('json-tree');
    await expect(tree).toContainText('"event":"order.created"');
    await expect(tree.locator('[data-json="number"]').first()).toHaveText('129.90');
    await expect(tree.locator('[data-json="boolean"]')).toHaveText('true');
    await expect(tree.locator('[data-json="null"]')).toHaveText('null');
    await expect(tree.getByText('"ord_1001"')).toBeVisible();
    // Two levels open; deeper branches start closed and render nothing yet.
    const items = tree.locator('summary', { hasText: '"items":' });
    await expect(items).toContainText('[…]2 items');
    await expect(tree.getByText('"TEA-01"')).toHaveCount(0);
    await items.click();
    const firstItem = tree.locator('summary', { hasText: /^0:/ });
    await expect(firstItem).toContainText('{…}2 keys');
    await expect(tree.getByText('"TEA-01"')).toHaveCount(0);
    await firstItem.click();
    await expect(tree.getByText('"TEA-01"')).toBeVisible();
    const order = tree.locator('summary', { hasText: '"order":' });
    await order.click();
    await expect(order).toContainText('{…}6 keys');
    await expect(tree.getByText('"ord_1001"')).toBeHidden();
    await order.click();
    await expect(tree.getByText('"ord_1001"')).toBeVisible();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'delivery-accepted');

    await viewer.getByRole('button', { name: 'Collapse all' }).click();
    await expect(tree.getByText('"ord_1001"')).toHaveCount(0);
    await viewer.getByRole('button', { name: 'Expand all' }).click();
    await expect(tree.getByText('"MUG-07"')).toBeVisible();

    await viewer.getByRole('button', { name: 'Raw' }).click();
    await expect(viewer.getByRole('button', { name: 'Raw' })).toHaveAttribute('aria-pressed', 'true');
    expect(await viewer.locator('pre').textContent()).toBe(orderBody);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'delivery-accepted-raw');
    await viewer.getByRole('button', { name: 'Copy JSON' }).click();
    await expect(viewer.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(orderBody);
    await viewer.getByRole('button', { name: 'Tree' }).click();
    await expect(tree).toBeVisible();

    const headers = page.getByRole('table', { name: 'Request headers' });
    const header = (name: string) => headers.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });
    await expect(header('authorization').getByRole('cell').last()).toHaveText('[redacted]');
    // A header kept in clear also holds Filter on this (its name for screen readers follows the value).
    await expect(header('x-service-delivery-id').getByRole('cell').last()).toHaveText(/^evt-order-1001(Filter on header x-service-delivery-id)?$/);
    await expect(header('content-type').getByRole('cell').last()).toHaveText(/^application\/json/);
    expect(await page.content()).not.toContain(secret);
  });

  test('rejected and duplicate deliveries keep metadata only', async () => {
    await page.goto(`${webhookPath}?status=rejected_auth`);
    await rowsOf(page).first().getByRole('link', { name: /^View/ }).click();
    await expect(page.getByRole('heading', { name: 'Delivery', level: 1 })).toBeVisible();
    const details = page.locator('dl');
    const detail = (label: string) => details.locator('div').filter({ has: page.locator('dt', { hasText: label }) }).locator('dd');
    await expect(detail('Status')).toHaveText('Rejected (auth)');
    await expect(detail('Detail')).toHaveText('Wrong bearer token.');
    await expect(detail('Size')).toHaveText('17 bytes');
    // Refused before its body was read: no hash, a request ID.
    await expect(detail('Delivery ID')).toContainText(/^req_/);
    await expect(detail('Identity source')).toHaveText('Request ID (no sender ID, body not read)');
    await expect(page.getByRole('status').filter({ hasText: 'Payload not kept: only accepted deliveries keep their payload' })).toBeVisible();
    await expect(page.getByTestId('json-tree')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Copy JSON' })).toHaveCount(0);
    await expect(page.getByRole('table', { name: 'Request headers' })).toHaveCount(0);
    await expect(page.getByText('hello')).toHaveCount(0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'delivery-rejected');

    await page.goto(`${webhookPath}?status=duplicate`);
    await rowsOf(page).first().getByRole('link', { name: /^View/ }).click();
    await expect(page.getByRole('heading', { name: 'Delivery', level: 1 })).toBeVisible();
    await expect(detail('Status')).toHaveText('Duplicate');
    await expect(detail('Detail')).toHaveText('Identity already accepted.');
    await expect(page.getByText('Payload not kept: only accepted deliveries keep their payload')).toBeVisible();
    await expect(page.getByTestId('json-tree')).toHaveCount(0);
    await expect(page.getByText('ord_1003')).toHaveCount(0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'delivery-duplicate');
    await page.getByRole('link', { name: 'Find the accepted delivery' }).click();
    await expect(page).toHaveURL(/\?status=accepted&q=evt-order-1003#deliveries$/);
    await expectLabels(rowsOf(page), ['Accepted']);

    expect((await page.goto(`${webhookPath}/deliveries/dl_doesnotexist`))?.status()).toBe(404);
  });

  test('a large payload opens in pages of 200 children', async ({ request }) => {
    const rows = Array.from({ length: 450 }, (_, n) => ({ n }));
    expect((await post(request, JSON.stringify({ rows }), { 'X-Service-Delivery-Id': 'big-batch' })).status()).toBe(202);
    await page.goto(`${webhookPath}?q=big-batch`);
    await rowFor(page, 'big-batch').getByRole('link', { name: /^View/ }).click();
    const tree = page.getByTestId('json-tree');
    const list = tree.locator('summary', { hasText: '"rows":' });
    // Too many children to open on arrival.
    await expect(list).toContainText('[…]450 items');
    await expect(tree.locator('[data-json="array"] [data-json="object"]')).toHaveCount(0);
    await list.click();
    await expect(tree.locator('[data-json="array"] [data-json="object"]')).toHaveCount(200);
    await tree.getByRole('button', { name: 'Show 200 more (250 not shown)' }).click();
    await expect(tree.locator('[data-json="array"] [data-json="object"]')).toHaveCount(400);
    await tree.getByRole('button', { name: 'Show 50 more (50 not shown)' }).click();
    await expect(tree.locator('[data-json="array"] [data-json="object"]')).toHaveCount(450);
    await expect(tree.getByRole('button', { name: /^Show/ })).toHaveCount(0);
  });

  test('a payload nested 5,000 levels deep opens, shown as a tree to 64 levels and as text below', async ({ request }) => {
    const depth = 5_000;
    const body = `${'{"level":['.repeat(depth / 2)}"bottom"${']}'.repeat(depth / 2)}`;
    expect((await post(request, body, { 'X-Service-Delivery-Id': 'deep-5000' })).status()).toBe(202);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${webhookPath}?q=deep-5000`);
    await rowFor(page, 'deep-5000').getByRole('link', { name: /^View/ }).click();
    await expect(page.getByRole('heading', { name: 'Delivery', level: 1 })).toBeVisible();
    const payload = page.getByRole('region', { name: 'Payload' });
    const tree = payload.getByTestId('json-tree');
    await expect(tree).toBeVisible();
    await payload.getByRole('button', { name: 'Expand all' }).click();
    // 64 levels of tree, then the rest of the document as its exact text.
    await expect(tree.locator('details')).toHaveCount(64);
    const raw = tree.locator('[data-json="raw"]');
    await expect(raw).toHaveCount(1);
    await raw.getByRole('button', { name: /^Show all/ }).click();
    expect(body).toContain(await raw.textContent());
    await payload.getByRole('button', { name: 'Raw' }).click();
    await expect(payload.getByText('"bottom"')).toBeVisible();
    await screenshot(page, 'delivery-deep-json');
    expect(errors).toEqual([]);
  });

  test('a viewer reads the log and its entries', async ({ browser }) => {
    const viewerPage = await (await browser.newContext()).newPage();
    await signIn(viewerPage, viewer.email, viewer.password);
    await viewerPage.goto(webhookPath);
    await expect(viewerPage.getByRole('heading', { name: 'orders', level: 1 })).toBeVisible();
    await expect(rowsOf(viewerPage)).toHaveCount(25);
    await rowFor(viewerPage, 'tick-20').getByRole('link', { name: /^View/ }).click();
    await expect(viewerPage.getByRole('region', { name: 'Payload' }).getByTestId('json-tree')).toContainText('"event":"tick"');
    await expect(viewerPage.getByRole('table', { name: 'Request headers' })).toBeVisible();
    await viewerPage.context().close();
  });
});
