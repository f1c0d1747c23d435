import { expect, request, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { bearer } from '../fixtures/api';
import { completeFirstRunIfNeeded, createApiToken, instanceOwner, screenshot, signIn } from './helpers';

// The lists shown by page number (lib/platform/paging.ts, decision 108): the
// factories of a person (/factories) and the Instance page's factories, 100 a
// page. The instance owner belongs to 250 more factories than the other specs
// give them, so both lists have three pages; a person pages through them with
// the links a user sees. The factories' names sort after every other spec's
// ("zz ..."), so the switcher's first 20 and the Instance page's first page
// stay what the other specs see.

const ADDED = 250;
const PER_PAGE = 100;
const added = Array.from({ length: ADDED }, (_, i) => `zz paged ${String(i + 1).padStart(3, '0')}`);

/** The factories of the API's caller in the order every list shows them (by name), through the API's cursor. */
async function factoriesByName(api: APIRequestContext): Promise<{ slug: string; name: string }[]> {
  const all: { slug: string; name: string }[] = [];
  let cursor = '';
  do {
    const response = await api.get(`/api/v1/factories?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(response.status()).toBe(200);
    const page = (await response.json()) as { factories: { slug: string; name: string }[]; nextCursor: string | null };
    all.push(...page.factories);
    cursor = page.nextCursor ?? '';
  } while (cursor);
  return all;
}

/** The factory names in a table's rows (the first line of each row's first cell: a link, or text). */
const rowNames = (table: Locator) => table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.querySelector('td a, td div')?.textContent?.trim() ?? ''));

/** The pager's links, by their visible text. */
const pagerLinks = (nav: Locator) => nav.getByRole('link').allInnerTexts();

test.describe.serial('numbered pages: /factories and the Instance page', () => {
  let page: Page;
  let api: APIRequestContext;
  let mine: { slug: string; name: string }[];

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(budget(240_000));
    await completeFirstRunIfNeeded(browser);
    page = await (await browser.newContext()).newPage();
    await signIn(page, instanceOwner.email, instanceOwner.password);
    const token = await createApiToken(page, 'Paging');
    api = await request.newContext({ baseURL: new URL(page.url()).origin, extraHTTPHeaders: bearer(token) });
    // Ten at a time: a run of this spec alone on a busy machine stays within its budget.
    for (let i = 0; i < ADDED; i += 10) {
      const statuses = await Promise.all(
        added.slice(i, i + 10).map(async (name) => (await api.post('/api/v1/factories', { data: { name, slug: name.replaceAll(' ', '-') } })).status()),
      );
      expect(statuses.every((status) => status === 201)).toBe(true);
    }
    mine = await factoriesByName(api);
    expect(mine.length).toBeGreaterThan(2 * PER_PAGE);
  });

  test.afterAll(async () => {
    await api?.dispose();
    await page?.context().close();
  });

  test('/factories: Next, Previous and First page show the rows of that page, and the footer says which page it is', async () => {
    const total = mine.length;
    const pages = Math.ceil(total / PER_PAGE);
    expect(pages).toBe(3);
    const table = page.getByRole('table');
    const nav = page.getByRole('navigation', { name: 'Factory pages' });
    const footer = (n: number) => `Page ${n} of ${pages}: factories ${(n - 1) * PER_PAGE + 1}-${Math.min(n * PER_PAGE, total)} of ${total.toLocaleString('en')}`;
    const expectPage = async (n: number, links: string[]) => {
      await expect(page.getByText(footer(n), { exact: true })).toBeVisible();
      expect(await rowNames(table)).toEqual(mine.slice((n - 1) * PER_PAGE, n * PER_PAGE).map((f) => f.name));
      expect(await pagerLinks(nav)).toEqual(links);
    };

    await page.goto('/factories');
    await expect(page.getByRole('heading', { name: `${total} factories` })).toBeVisible();
    await expectPage(1, ['Next page']);

    await nav.getByRole('link', { name: 'Next page' }).click();
    await expect(page).toHaveURL(/\/factories\?page=2$/);
    // On the second page the first page is the previous one: one link for it.
    await expectPage(2, ['First page', 'Next page']);

    await nav.getByRole('link', { name: 'Next page' }).click();
    await expect(page).toHaveURL(/\/factories\?page=3$/);
    await expectPage(3, ['First page', 'Previous page']);
    await expect(nav.getByRole('link', { name: 'Previous page' })).toHaveAttribute('rel', 'prev');
    await screenshot(page, 'factories-page-3');

    await nav.getByRole('link', { name: 'Previous page' }).click();
    await expect(page).toHaveURL(/\/factories\?page=2$/);
    await expectPage(2, ['First page', 'Next page']);

    await nav.getByRole('link', { name: 'First page' }).click();
    await expect(page).toHaveURL(/\/factories$/);
    await expectPage(1, ['Next page']);

    // A page past the last shows the last; a row links to its factory.
    await page.goto('/factories?page=99');
    await expectPage(3, ['First page', 'Previous page']);
    await table.getByRole('link', { name: added.at(-1)! }).click();
    await expect(page).toHaveURL(new RegExp(`/f/${added.at(-1)!.replaceAll(' ', '-')}/automations$`));
  });

  test('the Instance page pages its factories and keeps the accounts list where it is', async () => {
    await page.goto('/instance');
    const nav = page.getByRole('navigation', { name: 'Factory pages' });
    // The factories' card: the one whose heading counts them.
    const card = page.locator('div').filter({ has: page.getByRole('heading', { level: 2, name: /factories$/ }) }).filter({ has: nav }).last();
    // Few accounts: one page, no pager for them.
    await expect(page.getByRole('navigation', { name: 'Account pages' })).toHaveCount(0);
    const total = Number((await card.getByRole('heading', { level: 2, name: /factories$/ }).innerText()).split(' ')[0]!.replaceAll(',', ''));
    expect(total).toBeGreaterThanOrEqual(mine.length);
    const pages = Math.ceil(total / PER_PAGE);
    const footer = (n: number) => `Page ${n} of ${pages}: factories ${(n - 1) * PER_PAGE + 1}-${Math.min(n * PER_PAGE, total)} of ${total.toLocaleString('en')}`;
    const names = () => rowNames(card);
    await expect(card.getByText(footer(1), { exact: true })).toBeVisible();
    const firstPage = await names();
    expect(firstPage).toHaveLength(PER_PAGE);
    expect(await pagerLinks(nav)).toEqual(['Next page']);

    await nav.getByRole('link', { name: 'Next page' }).click();
    await expect(page).toHaveURL(/\/instance\?factories=2$/);
    await expect(card.getByText(footer(2), { exact: true })).toBeVisible();
    const secondPage = await names();
    expect(secondPage).toHaveLength(PER_PAGE);
    expect(secondPage.filter((name) => firstPage.includes(name))).toEqual([]);
    expect(await pagerLinks(nav)).toEqual(pages > 2 ? ['First page', 'Next page'] : ['First page']);

    await page.goto(`/instance?factories=${pages}`);
    await expect(card.getByText(footer(pages), { exact: true })).toBeVisible();
    expect(await pagerLinks(nav)).toEqual(['First page', 'Previous page']);
    // The last page holds the last factories by name: this spec's, which sort after every other.
    expect(await names()).toEqual(added.slice(added.length - (total - (pages - 1) * PER_PAGE)));
    await screenshot(page, 'instance-factories-last-page');

    await nav.getByRole('link', { name: 'Previous page' }).click();
    await expect(page).toHaveURL(new RegExp(`/instance\\?factories=${pages - 1}$`));
    await expect(card.getByText(footer(pages - 1), { exact: true })).toBeVisible();
    await nav.getByRole('link', { name: 'First page' }).click();
    await expect(page).toHaveURL(/\/instance$/);
    await expect(card.getByText(footer(1), { exact: true })).toBeVisible();
    expect(await names()).toEqual(firstPage);
  });
});
