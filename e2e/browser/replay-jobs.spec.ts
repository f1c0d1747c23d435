import { expect, test, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { axeViolations, createWebhook, screenshot, signIn, useFactoryPage } from './helpers';

// Bulk replay in the dashboard, on this spec's own factory: from a filtered
// delivery log to the replay page with the filters carried over, the count,
// Start, the progress bar (which a reload shows again), completion, Cancel,
// and the page at 1440 and 390 px with no axe violation. A viewer sees the jobs but
// no Start button.

const admin = { name: 'Rae Admin', email: 'rae@replay.test', password: 'rae password 1234' };
const viewer = { name: 'Val Viewer', email: 'val@replay.test', password: 'val password 1234' };
const factory = { name: 'Replay Room', slug: 'replay-room' };

test.describe.serial('bulk replay', () => {
  let page: Page;
  let webhookPath = '';

  useFactoryPage({ admin, factory, member: viewer, role: 'viewer' }, (opened) => (page = opened));

  test('selects from the filtered log, sees the count, starts, and follows the progress across a reload', async ({ request }) => {
    const hook = await createWebhook(page, factory.slug, 'shop');
    // 50 orders and 5 pings (a webhook takes 60 a minute): the search "order" selects the orders, and the job (5 a second on the test servers) runs long enough to watch.
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${hook.secret}` };
    for (let i = 0; i < 55; i++) {
      const body = i % 11 === 0 ? { kind: 'ping', n: i } : { kind: 'order', n: i };
      expect((await request.post(hook.url, { data: Buffer.from(JSON.stringify(body)), headers })).status()).toBe(202);
    }
    webhookPath = `/f/${factory.slug}/automations/webhooks/${hook.uid}`;
    await page.goto(webhookPath);
    const log = page.getByRole('region', { name: 'Deliveries', exact: true });
    await log.getByRole('searchbox', { name: 'Search deliveries' }).fill('order');
    await expect(page).toHaveURL(/q=order/);
    await expect(log.locator('tbody tr')).toHaveCount(25);
    await log.scrollIntoViewIfNeeded();
    await screenshot(page, 'replay-log-link');
    await log.getByRole('link', { name: 'Replay these…' }).click();

    await expect(page.getByRole('heading', { name: 'Replay deliveries', level: 1 })).toBeVisible();
    await expect(page).toHaveURL(/\/replay\?q=order$/);
    const selection = page.getByRole('region', { name: 'Selection' });
    await expect(selection.getByLabel('Search')).toHaveValue('order');
    await expect(selection.getByText('50 deliveries', { exact: true })).toBeVisible();
    await expect(selection.getByRole('listitem')).toHaveCount(10);
    await screenshot(page, 'replay-selection');

    await selection.getByRole('button', { name: 'Replay 50 deliveries' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Start replay' }).click();

    const jobs = page.getByRole('region', { name: 'Replay jobs' });
    const bar = jobs.getByRole('progressbar');
    await expect(bar).toHaveCount(1);
    await expect(bar).toHaveAttribute('aria-valuemax', '50');
    await expect(jobs.getByText('Running', { exact: true })).toBeVisible();
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: budget(15_000) }).toBeGreaterThan(0);
    await screenshot(page, 'replay-running');

    // A reload shows the same job, at least as far along.
    const before = Number(await bar.getAttribute('aria-valuenow'));
    await page.reload();
    await expect(page.getByRole('region', { name: 'Replay jobs' }).getByRole('progressbar')).toHaveCount(1);
    expect(Number(await page.getByRole('region', { name: 'Replay jobs' }).getByRole('progressbar').getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(before);
    // While it runs, a second replay cannot start.
    await expect(page.getByText('A replay is running: start this one when it has finished, or cancel it.')).toBeVisible();

    await expect(page.getByRole('region', { name: 'Replay jobs' }).getByText('Completed', { exact: true })).toBeVisible({ timeout: budget(40_000) });
    await expect(page.getByRole('region', { name: 'Replay jobs' }).getByText(/^50 of 50 deliveries \(100%\)/)).toBeVisible();
    await expect(page.getByRole('region', { name: 'Replay jobs' })).toContainText(`Started by ${admin.email}`);
    await screenshot(page, 'replay-completed');
    expect(await axeViolations(page, 'replay page, a job completed')).toEqual([]);
  });

  test('cancels a running replay from the page', async () => {
    await page.goto(`${webhookPath}/replay?q=order`);
    await page.getByRole('region', { name: 'Selection' }).getByRole('button', { name: 'Replay 50 deliveries' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Start replay' }).click();
    const jobs = page.getByRole('region', { name: 'Replay jobs' });
    const running = jobs.locator('[data-replay-job]').first();
    await expect(running.getByText('Running', { exact: true })).toBeVisible();
    await running.getByRole('button', { name: 'Cancel replay' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Cancel replay' }).click();
    await expect(running.getByText('Cancelled', { exact: true })).toBeVisible();
    await expect(running).toContainText(`cancelled by ${admin.email}`);
    const done = Number(await running.getByRole('progressbar').getAttribute('aria-valuenow'));
    expect(done).toBeLessThan(50);
    // It stays where it stopped.
    // eslint-disable-next-line no-restricted-syntax -- about time passing: at the test servers' 5 replays a second, 1.5 s would replay about 7 more.
    await page.waitForTimeout(1_500);
    await page.reload();
    expect(Number(await page.getByRole('region', { name: 'Replay jobs' }).locator('[data-replay-job]').first().getByRole('progressbar').getAttribute('aria-valuenow'))).toBe(done);
  });

  test('a viewer follows the jobs but starts and cancels nothing', async ({ browser }) => {
    const viewerPage = await (await browser.newContext()).newPage();
    await signIn(viewerPage, viewer.email, viewer.password);
    await viewerPage.goto(webhookPath);
    await expect(viewerPage.getByRole('region', { name: 'Deliveries', exact: true }).locator('tbody tr').first()).toBeVisible();
    await expect(viewerPage.getByRole('link', { name: /^Replay/ })).toHaveCount(0);
    await viewerPage.goto(`${webhookPath}/replay?q=order`);
    await expect(viewerPage.getByRole('region', { name: 'Replay jobs' }).getByRole('progressbar')).toHaveCount(2);
    await expect(viewerPage.getByText('Admins start a replay.')).toBeVisible();
    await expect(viewerPage.getByRole('button', { name: /^Replay \d+ deliveries$/ })).toHaveCount(0);
    await expect(viewerPage.getByRole('button', { name: 'Cancel replay' })).toHaveCount(0);
    await viewerPage.context().close();
  });

  test('the page reads well on a phone and refuses a selection it cannot replay', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${webhookPath}/replay?event=a..b`);
    await expect(page.getByRole('region', { name: 'Selection' }).getByText(/The event type filter is not valid/)).toBeVisible();
    await page.goto(`${webhookPath}/replay`);
    await expect(page.getByRole('region', { name: 'Selection' }).getByText('55 deliveries', { exact: true })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'replay-phone');
    expect(await axeViolations(page, 'replay page at 390 px')).toEqual([]);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${webhookPath}/replay`);
    await screenshot(page, 'replay-desktop');
  });
});
