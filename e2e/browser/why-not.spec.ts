import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { createWebhook, screenshot, signIn, useFactoryPage } from './helpers';

// Why not, Replay and Backtest, on this spec's own factory and accounts: a
// delivery that did not match shows on its page which filter key failed and
// the value seen; Backtest in the editor shows which posted deliveries the
// filter as written (unsaved) would trigger; after the filter is fixed the
// admin replays the delivery, a run starts and is marked as a replay, and a
// second replay starts nothing new. A duplicate explains itself; a viewer
// reads the explanation but gets no Replay.

const admin = { name: 'Rae Admin', email: 'rae@why-not.test', password: 'rae password 1234' };
const viewer = { name: 'Vic Viewer', email: 'vic@why-not.test', password: 'vic password 1234' };
const factory = { name: 'Why Not Works', slug: 'why-not-works' };
const base = `/f/${factory.slug}/automations`;

const pending = { status: 'pending', order: { id: 101, total: 40 } };
const paid = { status: 'paid', order: { id: 102, total: 75 } };
const refunded = { status: 'refunded', order: { id: 103, total: 12 } };

test.describe.serial('why not, replay and backtest', () => {
  let page: Page;
  let orders = { url: '', secret: '', uid: '' };
  let automationPath = '';

  const post = (request: APIRequestContext, body: unknown, deliveryId: string) =>
    request.post(orders.url, {
      data: Buffer.from(JSON.stringify(body)),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${orders.secret}`, 'X-Service-Delivery-Id': deliveryId },
    });

  /** Opens a delivery's page from the webhook's log (`status` narrows it, e.g. to the duplicate). */
  async function openDelivery(target: Page, deliveryId: string, status?: string) {
    await target.goto(`${base}/webhooks/${orders.uid}${status ? `?status=${status}` : ''}`);
    await target.getByRole('link', { name: `View delivery ${deliveryId}` }).click();
    await expect(target.getByRole('heading', { name: 'Delivery', level: 1 })).toBeVisible();
  }

  const whyNot = (target: Page) => target.getByRole('region', { name: 'Automations on this webhook', exact: true });
  const trigger = () => page.locator('li[aria-label="Trigger 1"]');

  useFactoryPage({ admin, factory, member: viewer, role: 'viewer' }, (opened) => (page = opened));

  test('before any automation, a delivery page says none has a trigger on its webhook', async ({ request }) => {
    orders = await createWebhook(page, factory.slug, 'orders');
    expect((await post(request, pending, 'ord-101')).status()).toBe(202);
    await openDelivery(page, 'ord-101');
    const card = whyNot(page);
    await expect(card.getByRole('heading', { name: 'No automation has a trigger on this webhook' })).toBeVisible();
    await card.getByRole('link', { name: 'Go to Automations' }).click();
    await expect(page).toHaveURL(base);
  });

  test('a delivery that did not match shows the failing key and the value seen', async ({ request }) => {
    await page.getByRole('link', { name: 'New automation' }).first().click();
    const form = page.getByRole('form', { name: 'New automation' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Ship paid orders');
    await form.getByLabel('Prompt').fill('Ship the order in event-payload.json.');
    await trigger().getByLabel('Webhook').selectOption({ label: 'orders' });
    await trigger().getByLabel('Payload filter').fill('{"status": "paid"}');
    await form.getByRole('button', { name: 'Create automation' }).click();
    await expect(page).toHaveURL(new RegExp(`${base}/c[a-z0-9]+$`));
    automationPath = new URL(page.url()).pathname;

    expect((await post(request, pending, 'ord-201')).status()).toBe(202);
    expect((await post(request, paid, 'ord-202')).status()).toBe(202);
    expect((await post(request, refunded, 'ord-203')).status()).toBe(202);

    await openDelivery(page, 'ord-201');
    const row = whyNot(page).getByRole('listitem', { name: 'Ship paid orders' });
    await expect(row).toContainText('Did not start');
    await expect(row).toContainText('Did not start: the payload filter did not match');
    const failed = row.locator('li[data-passed="false"]');
    await expect(failed).toHaveCount(1);
    await expect(failed).toHaveText('status: expected "paid", got "pending" (different value)');
    await expect(page.getByRole('region', { name: 'Runs started by this delivery' }).getByText('No runs')).toBeVisible();
    await screenshot(page, 'why-not-did-not-start');

    // The matching one names its run.
    await openDelivery(page, 'ord-202');
    const started = whyNot(page).getByRole('listitem', { name: 'Ship paid orders' });
    await expect(started).toContainText('Started a run');
    await expect(started.getByRole('link', { name: /^View run/ })).toBeVisible();
  });

  test('Backtest shows which posted deliveries the filter as written would trigger', async () => {
    await page.goto(automationPath);
    const panel = trigger().getByRole('region', { name: 'Backtest', exact: true });
    await panel.getByRole('button', { name: 'Backtest' }).click();
    let result = panel.getByRole('status', { name: 'Backtest result' });
    await expect(result).toContainText('1 of 4 deliveries to orders in the retained log would trigger.');
    await expect(result.locator('tbody tr')).toHaveCount(4);
    await expect(result.locator('tr', { hasText: 'ord-202' })).toContainText('Would trigger');
    const refundedRow = result.locator('tr', { hasText: 'ord-203' });
    await expect(refundedRow).toContainText('Would not trigger');
    await expect(refundedRow).toContainText('path "status": expected "paid", got "refunded"');
    await expect(refundedRow.getByRole('link', { name: 'ord-203' })).toHaveAttribute('href', new RegExp(`/webhooks/${orders.uid}/deliveries/`));

    // Unsaved edits count, and a result about the old text disappears at the first edit.
    await trigger().getByLabel('Payload filter').fill('{"status": ["paid", "pending"]}');
    await expect(result).toHaveCount(0);
    await panel.getByRole('button', { name: 'Backtest' }).click();
    result = panel.getByRole('status', { name: 'Backtest result' });
    await expect(result).toContainText('3 of 4 deliveries to orders in the retained log would trigger.');
    await expect(result.locator('tr', { hasText: 'ord-201' })).toContainText('Would trigger');
    await expect(result.locator('tr', { hasText: 'ord-203' })).toContainText('Would not trigger');
    await screenshot(page, 'why-not-backtest');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Saved', { exact: true })).toBeVisible();
  });

  test('after the fix, the admin replays the delivery and the run it starts is marked as a replay', async () => {
    await openDelivery(page, 'ord-201');
    const row = whyNot(page).getByRole('listitem', { name: 'Ship paid orders' });
    await expect(row).toContainText('Did not start, but matches today: the automation changed after the delivery arrived. Replay the delivery to start it.');
    await expect(row).toContainText('Trigger 1: its payload filter matches this delivery today.');
    await expect(page.getByRole('term').filter({ hasText: 'Replays' })).toHaveCount(0);

    await whyNot(page).getByRole('button', { name: 'Replay' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Replay this delivery?' });
    await expect(dialog).toContainText('Authentication and signature age are not checked again');
    await screenshot(page, 'why-not-replay-confirm');
    await dialog.getByRole('button', { name: 'Replay delivery' }).click();
    await expect(dialog).toBeHidden();

    const outcome = whyNot(page).getByRole('status').filter({ hasText: 'Started 1 run' });
    await expect(outcome).toContainText('Ship paid orders: view run');
    // The page refreshed: the run is listed, marked as a replay, in both cards, and the details record the replay.
    const runs = page.getByRole('region', { name: 'Runs started by this delivery', exact: true });
    await expect(runs.locator('tbody tr')).toHaveCount(1);
    await expect(runs.locator('tbody tr').first()).toContainText('Replay');
    await expect(row).toContainText('Started a run when the delivery was replayed');
    await expect(row).toContainText('Replay');
    await expect(page.getByRole('definition').filter({ hasText: /^Replayed once, last on .+ by rae@why-not\.test$/ })).toBeVisible();
    await expect(runs.locator('tbody tr').first()).toContainText('Succeeded', { timeout: budget(20_000) });
    await screenshot(page, 'why-not-replayed');

    // A second replay starts nothing new.
    await whyNot(page).getByRole('button', { name: 'Replay' }).click();
    await page.getByRole('alertdialog', { name: 'Replay this delivery?' }).getByRole('button', { name: 'Replay delivery' }).click();
    await expect(whyNot(page).getByRole('status').filter({ hasText: 'Nothing new to start' })).toContainText('Ship paid orders already ran for this delivery.');
    await expect(page.getByRole('definition').filter({ hasText: /^Replayed 2 times/ })).toBeVisible();
    await expect(runs.locator('tbody tr')).toHaveCount(1);

    await row.getByRole('link', { name: /^View run/ }).click();
    await expect(page).toHaveURL(new RegExp(`${automationPath}/runs/[\\w-]+$`));
  });

  test('a duplicate says why it started nothing; a viewer reads Why not without Replay', async ({ browser, request }) => {
    expect((await post(request, paid, 'ord-202')).status()).toBe(202);
    await openDelivery(page, 'ord-202', 'duplicate');
    await expect(whyNot(page)).toContainText('This entry is a Duplicate: the identity was already accepted, so it started nothing.');
    await expect(whyNot(page).getByRole('button', { name: 'Replay' })).toHaveCount(0);
    await screenshot(page, 'why-not-duplicate');

    const viewerPage = await (await browser.newContext()).newPage();
    await signIn(viewerPage, viewer.email, viewer.password);
    await openDelivery(viewerPage, 'ord-203');
    const row = whyNot(viewerPage).getByRole('listitem', { name: 'Ship paid orders' });
    await expect(row.locator('li[data-passed="false"]')).toHaveText('status: expected one of ["paid","pending"], got "refunded" (not in the list)');
    await expect(whyNot(viewerPage).getByRole('button', { name: 'Replay' })).toHaveCount(0);
    await viewerPage.context().close();
  });
});
