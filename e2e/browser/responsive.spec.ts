import { expect, test, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { bearer } from '../fixtures/api';
import { axeViolations, completeFirstRunIfNeeded, createApiToken, createWebhook, instanceOwner, invite, screenshot, signIn } from './helpers';

// Every dashboard page on a phone (390 px) and on a desktop (1440 px), in one
// browser context signed in as the instance owner (the only account that sees
// the Instance page), on a factory of this spec's own with data on every page:
// a webhook with accepted and rejected deliveries, an automation with a run,
// a pending invitation and an API token. On each page: the axe-core WCAG 2.1
// A/AA rules find nothing, at one of the two widths, and at 390 px the document
// does not scroll sideways (only code and JSON blocks scroll, inside their own
// box). At 390 px the sidebar is a Menu button that opens it as a modal drawer.
//
// axe takes seconds of CPU a page, so each page has it once, at one width,
// about half the pages at each: 390 px for those whose layout changes most on
// a phone (tables become lists of labelled rows: the automation and webhook
// lists, an automation's runs, the webhook page and its delivery log, a
// delivery, secrets, members, the instance), 1440 px for the forms and the
// rest. The shell is checked both ways, the Menu button with the 390 px pages
// and the sidebar with the 1440 px ones; the open menu has its own check.

const factory = { name: 'Pocket Ops', slug: 'pocket-ops' };
const base = `/f/${factory.slug}`;
const phone = { width: 390, height: 844 };
const desktop = { width: 1440, height: 900 };

type Width = 1440 | 390;
/** A page to visit, and the width at which axe checks it. */
type DashboardPage = { name: string; path: string; heading: string | RegExp; shot?: boolean; axeAt: Width };

/**
 * How far the document is wider than the viewport, and the elements that stick
 * out of the screen: even those a card clips (overflow: hidden) are cut off
 * for the reader. Only the content of a box that scrolls sideways itself (a
 * code or JSON block) may be wider.
 */
async function sidewaysOverflow(page: Page): Promise<{ overflow: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    // Not seen: a visually hidden element (sr-only clips it with clip-path: inset(50%)), or the content of a box that scrolls sideways itself.
    const hidden = (style: CSSStyleDeclaration) => style.clipPath === 'inset(50%)';
    const excused = (element: Element) => {
      if (hidden(getComputedStyle(element))) return true;
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const style = getComputedStyle(parent);
        if (['auto', 'scroll'].includes(style.overflowX) || hidden(style)) return true;
      }
      return false;
    };
    const culprits = [...document.querySelectorAll('body *')]
      .filter((element) => {
        const { left, right } = element.getBoundingClientRect();
        return (right > width + 0.5 || left < -0.5) && !excused(element);
      })
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${String(element.className).split(' ').slice(0, 4).join('.')} (${Math.round(element.getBoundingClientRect().right)}px)`);
    return { overflow: document.documentElement.scrollWidth - width, culprits };
  });
}

test.describe.serial('every dashboard page on a phone and a desktop', () => {
  let page: Page;
  let webhookPath = '';
  const pages: DashboardPage[] = [];

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(budget(120_000));
    await completeFirstRunIfNeeded(browser);
    page = await (await browser.newContext({ viewport: desktop })).newPage();
    await signIn(page, instanceOwner.email, instanceOwner.password);

    await page.goto('/factories/new');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(factory.name);
    await page.getByRole('button', { name: 'Create factory' }).click();
    await expect(page).toHaveURL(`${base}/automations`);

    // A webhook with an accepted delivery (a JSON payload) and a rejected one.
    const webhook = await createWebhook(page, factory.slug, 'shop-orders');
    const post = (secret: string, deliveryId: string) =>
      page.request.post(webhook.url, {
        data: Buffer.from(JSON.stringify({ event: 'order.created', order: { id: 'ord_2001', items: [{ sku: 'TEA-01', qty: 2 }], note: 'Leave at the door' } })),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}`, 'X-Service-Delivery-Id': deliveryId },
      });
    expect((await post('not-the-secret', 'evt-order-rejected')).status()).toBe(401);

    // An API token (listed on the user settings page) creates the automation whose run the delivery starts.
    const token = await createApiToken(page, 'Phone check');
    const created = await page.request.post(`/api/v1/factories/${factory.slug}/automations`, {
      headers: bearer(token),
      data: {
        name: 'Summarise orders',
        prompt: 'Summarise the order in event-payload.json for the shop team.',
        triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: [webhook.uid], payload: { event: 'order.created' } } }],
      },
    });
    expect(created.status()).toBe(201);
    const { automation } = (await created.json()) as { automation: { id: string } };
    // The body names the event type, so the log has its Event type column and the chart its split by type.
    const typed = await page.request.patch(`/api/v1/factories/${factory.slug}/webhooks/${webhook.uid}`, {
      headers: { Authorization: `Bearer ${token}` },
      data: { eventTypePath: 'event' },
    });
    expect(typed.status()).toBe(200);
    expect((await post(webhook.secret, 'evt-order-2001')).status()).toBe(202);

    await invite(page, factory.slug, 'sam@pocket-ops.test', 'editor');

    webhookPath = `${base}/automations/webhooks/${webhook.uid}`;
    await page.goto(webhookPath);
    const view = page.getByRole('region', { name: 'Deliveries', exact: true }).locator('tbody tr[data-delivery-id="evt-order-2001"]').getByRole('link', { name: /^View/ });
    const deliveryPath = new URL((await view.getAttribute('href'))!, page.url()).pathname;
    await expect(page.getByRole('region', { name: 'Deliveries', exact: true }).locator('tbody tr[data-delivery-id="evt-order-2001"]')).toContainText('order.created');
    const automationPath = `${base}/automations/${automation.id}`;
    await page.goto(automationPath);
    const run = page.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr').first().getByRole('link', { name: /^View/ });
    const runPath = new URL((await run.getAttribute('href'))!, page.url()).pathname;

    pages.push(
      { name: 'automations', path: `${base}/automations`, heading: 'Automations', shot: true, axeAt: 390 },
      { name: 'automation-new', path: `${base}/automations/new`, heading: 'New automation', axeAt: 1440 },
      { name: 'automation', path: automationPath, heading: 'Summarise orders', shot: true, axeAt: 390 },
      { name: 'run', path: runPath, heading: 'Run', shot: true, axeAt: 1440 },
      { name: 'webhooks', path: `${base}/automations/webhooks`, heading: 'Automations', shot: true, axeAt: 390 },
      { name: 'webhook-new', path: `${base}/automations/webhooks/new`, heading: 'New webhook', axeAt: 1440 },
      { name: 'webhook', path: webhookPath, heading: 'shop-orders', shot: true, axeAt: 390 },
      { name: 'webhook-by-type', path: `${webhookPath}?chart=types`, heading: 'shop-orders', shot: true, axeAt: 1440 },
      { name: 'delivery', path: deliveryPath, heading: 'Delivery', shot: true, axeAt: 390 },
      { name: 'secrets', path: `${base}/secrets`, heading: 'Secrets', axeAt: 390 },
      { name: 'members', path: `${base}/members`, heading: 'Members', shot: true, axeAt: 390 },
      { name: 'factory-settings', path: `${base}/settings`, heading: 'Settings', axeAt: 1440 },
      { name: 'instance', path: '/instance', heading: 'Instance', shot: true, axeAt: 390 },
      // Past paging.spec.ts (250 more factories) the third page, with its First and Previous page links; alone, the only page.
      { name: 'factories', path: '/factories?page=3', heading: 'Your factories', shot: true, axeAt: 390 },
      { name: 'user-settings', path: '/settings', heading: 'User settings', axeAt: 1440 },
      { name: 'factory-new', path: '/factories/new', heading: 'New factory', axeAt: 1440 },
    );
  });

  test.afterAll(async () => {
    await page?.context().close();
  });

  test('every page passes the WCAG 2.1 AA checks of axe-core at 1440 px or at 390 px, and at 390 px nothing scrolls sideways', async () => {
    test.setTimeout(budget(180_000));
    const violations: string[] = [];
    const overflowing: string[] = [];
    let axeMs = 0;
    for (const [width, viewport] of [
      [1440, desktop],
      [390, phone],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const entry of pages) {
        const axe = entry.axeAt === width;
        // At 390 px every page is opened for the sideways check; at 1440 px only those with something to do there.
        if (viewport === desktop && !axe && !entry.shot) continue;
        await page.goto(entry.path);
        await expect(page.getByRole('heading', { level: 1, name: entry.heading })).toBeVisible();
        if (axe) {
          const started = performance.now();
          violations.push(...(await axeViolations(page, `${entry.name} at ${width} px`)));
          axeMs += performance.now() - started;
        }
        if (viewport === phone) {
          const { overflow, culprits } = await sidewaysOverflow(page);
          if (overflow > 0 || culprits.length > 0) overflowing.push(`${entry.name}: ${overflow}px wider than the screen: ${culprits.join(', ')}`);
        }
        if (entry.shot) await screenshot(page, `responsive-${entry.name}-${width}`);
      }
    }
    test.info().annotations.push({ type: 'measured', description: `axe on ${pages.length} pages, each once: ${Math.round(axeMs)} ms` });
    expect.soft(overflowing).toEqual([]);
    expect(violations).toEqual([]);
  });

  test('every page runs under its Content-Security-Policy with no violation, and cannot be framed', async () => {
    test.setTimeout(budget(180_000));
    await page.setViewportSize(desktop);
    const violations: string[] = [];
    const onConsole = (message: import('@playwright/test').ConsoleMessage) => {
      if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
    };
    page.on('console', onConsole);
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const seen = ((window as unknown as { __cspViolations?: string[] }).__cspViolations ??= []);
        seen.push(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    try {
      for (const entry of pages) {
        const response = await page.goto(entry.path);
        const headers = response!.headers();
        expect(headers['content-security-policy'], entry.name).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
        expect(headers['content-security-policy'], entry.name).toContain("frame-ancestors 'none'");
        expect(headers['x-frame-options'], entry.name).toBe('DENY');
        expect(headers['referrer-policy'], entry.name).toBe('same-origin');
        expect(headers['strict-transport-security'], `${entry.name}: HSTS on a plain-http base URL`).toBeUndefined();
        await expect(page.getByRole('heading', { level: 1, name: entry.heading })).toBeVisible();
        // The app's scripts ran: the page is interactive (the menu button answers once hydrated).
        await page.waitForLoadState('networkidle');
        const seen = await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []);
        violations.push(...seen.map((line) => `${entry.name}: ${line}`));
      }
      // The automation editor (CodeMirror, which injects its own styles) works under the policy.
      await page.goto(pages.find((entry) => entry.name === 'automation-new')!.path);
      await expect(page.locator('.cm-editor').first()).toBeVisible();
      await page.locator('.cm-content').first().click();
      await page.keyboard.type('{"a"');
      await expect(page.locator('.cm-content').first()).toContainText('"a"');
    } finally {
      page.off('console', onConsole);
    }
    expect(violations).toEqual([]);
  });

  test('at 390 px the navigation is a menu: it opens, takes focus, closes on Escape and on navigation', async () => {
    await page.setViewportSize(phone);
    await page.goto(`${base}/automations`);
    // The sidebar is not on screen; its links are behind the Menu button.
    await expect(page.getByRole('navigation', { name: 'Factory' })).toBeHidden();
    const button = page.getByRole('button', { name: 'Menu', exact: true });
    await expect(button).toHaveAttribute('aria-expanded', 'false');

    await button.click();
    const menu = page.getByRole('dialog', { name: 'Menu' });
    await expect(menu).toBeVisible();
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(menu.getByRole('link', { name: 'Automations' })).toHaveAttribute('aria-current', 'page');
    // Focus moved inside; the page behind is inert, so Tab stays in the menu.
    await expect(menu.locator(':focus')).toHaveCount(1);
    for (let i = 0; i < 8; i++) await page.keyboard.press('Tab');
    await expect(menu.locator(':focus')).toHaveCount(1);
    await screenshot(page, 'responsive-menu-390');
    expect(await axeViolations(page, 'open menu at 390 px')).toEqual([]);

    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(button).toHaveAttribute('aria-expanded', 'false');
    await expect(button).toBeFocused();

    // From the keyboard: open it, go to Members; it closes on arrival.
    await page.keyboard.press('Enter');
    await expect(menu).toBeVisible();
    await menu.getByRole('link', { name: 'Members' }).focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(`${base}/members`);
    await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeVisible();
    await expect(menu).toBeHidden();
    await expect(button).toHaveAttribute('aria-expanded', 'false');

    // The account menu is in it too.
    await button.click();
    await menu.locator('summary', { hasText: 'Account menu' }).click();
    await menu.getByRole('link', { name: 'User settings' }).click();
    await expect(page).toHaveURL('/settings');
    await expect(menu).toBeHidden();
  });

  test('at 390 px a table is a list of labelled rows, and at 1440 px the sidebar runs the full page height', async () => {
    await page.setViewportSize(phone);
    await page.goto(`${base}/automations/webhooks`);
    const row = page.locator('tbody tr', { hasText: 'shop-orders' });
    // Each cell shows its column's name before the value, on its own line.
    const authentication = row.locator('td[data-label="Authentication"]');
    await expect(authentication).toHaveText('Bearer token');
    const before = await authentication.evaluate((cell) => getComputedStyle(cell, '::before').content);
    expect(before).toBe('"Authentication"');
    const [name, auth] = await Promise.all([row.locator('td').first().boundingBox(), authentication.boundingBox()]);
    expect(auth!.y).toBeGreaterThanOrEqual(name!.y + name!.height - 1);
    expect(auth!.x + auth!.width).toBeLessThanOrEqual(phone.width);

    await page.setViewportSize(desktop);
    // The webhook page is several screens long.
    await page.goto(webhookPath);
    await page.mouse.wheel(0, 2000);
    const aside = page.locator('aside');
    const documentHeight = await page.evaluate(() => document.documentElement.scrollHeight);
    expect((await aside.boundingBox())!.height).toBeGreaterThanOrEqual(documentHeight - 1);
  });
});
