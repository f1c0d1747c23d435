import { AxeBuilder } from '@axe-core/playwright';
import { expect, request, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { bearer } from '../fixtures/api';
import { rememberSecrets } from '../fixtures/secrets';

export const shotsDir = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true });
}

/** The axe-core rules the dashboard meets: WCAG 2.1 at levels A and AA. */
const wcag21aa = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** The page's WCAG 2.1 AA violations by axe-core, one line each with the elements they were found on (after `label` when given). */
export async function axeViolations(page: Page, label?: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(wcag21aa).analyze();
  return violations.map((v) => `${label ? `${label}: ` : ''}${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/signin/);
}

export async function signOut(page: Page): Promise<void> {
  await page.locator('summary', { hasText: 'Account menu' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
}

export type TestUser = { name: string; email: string; password: string };

/**
 * The instance's owner: the account the first-run setup creates (in
 * accounts.spec.ts, or in completeFirstRunIfNeeded when a spec runs alone).
 * Sign-up is closed and only instance admins create factories, so specs get
 * their accounts and factories through this account and invitations.
 */
export const instanceOwner: TestUser = { name: 'Ada Admin', email: 'ada@acme.test', password: 'ada password 123' };

/**
 * The browser server starts empty and the first visitor must complete the
 * first run; when a spec runs alone nobody has yet. Creates the instance
 * owner (with a "First Run" factory) in that case.
 */
export async function completeFirstRunIfNeeded(browser: Browser): Promise<void> {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/setup');
  if (new URL(page.url()).pathname === '/setup') {
    await page.getByLabel(/^Name/).fill(instanceOwner.name);
    await page.getByLabel('Email').fill(instanceOwner.email);
    await page.getByLabel('Password').fill(instanceOwner.password);
    await page.getByLabel('Factory name').fill('First Run');
    await page.getByRole('button', { name: 'Create account and factory' }).click();
    await expect(page).toHaveURL(/\/f\/first-run\/automations$/);
  }
  await page.context().close();
}

/** Creates an invitation on a factory's Members page (as an admin); returns the link, shown once. */
export async function invite(page: Page, factorySlug: string, email: string, role: 'admin' | 'editor' | 'viewer'): Promise<string> {
  await page.goto(`/f/${factorySlug}/members`);
  const form = page.getByRole('form', { name: 'Invite someone' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Role').selectOption(role);
  await form.getByRole('button', { name: 'Create invitation' }).click();
  const link = page.getByLabel('Invitation link');
  await expect(link).toHaveValue(/\/invite\/inv_/);
  return link.inputValue();
}

/** Opens an invitation link signed out and creates the invited account; lands in the factory. */
export async function acceptWithNewAccount(page: Page, link: string, user: TestUser): Promise<void> {
  await page.goto(link);
  await page.getByLabel(/^Name/).fill(user.name);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await expect(page).toHaveURL(/\/f\/[a-z0-9-]+\/automations$/);
}

/** Creates an API token on the Settings page as the signed-in user; returns it (shown once), remembered as a secret. */
export async function createApiToken(page: Page, name: string): Promise<string> {
  await page.goto('/settings');
  await page.getByLabel('Token name').fill(name);
  await page.getByRole('button', { name: 'Create token' }).click();
  const field = page.getByLabel('New API token');
  await expect(field).toHaveValue(/^trl_/);
  const token = await field.inputValue();
  rememberSecrets(token);
  return token;
}

let owner: { page: Page; api: APIRequestContext } | undefined;

/**
 * The instance owner, signed in once per Playwright worker: a page, and the
 * management API with a token the owner created on the Settings page. Specs
 * set up what they are not about (a factory, its invitations) through the
 * API; the pages that do it have specs of their own (accounts.spec.ts).
 */
async function instanceOwnerSession(browser: Browser): Promise<{ page: Page; api: APIRequestContext }> {
  if (owner && !owner.page.isClosed()) return owner;
  const page = await (await browser.newContext()).newPage();
  await signIn(page, instanceOwner.email, instanceOwner.password);
  const token = await createApiToken(page, 'End-to-end setup');
  const api = await request.newContext({ baseURL: new URL(page.url()).origin, extraHTTPHeaders: bearer(token) });
  owner = { page, api };
  return owner;
}

/**
 * A fresh factory for one spec: the instance owner creates it and invites its
 * admin and a member (with a role) through the API; they create their
 * accounts from the links on the invitation page; then the owner leaves the
 * factory on its Members page. Returns the factory admin's page.
 */
export async function setUpFactory(
  browser: Browser,
  options: {
    admin: TestUser;
    factory: { name: string; slug: string };
    member: TestUser;
    role: 'admin' | 'editor' | 'viewer';
    contextOptions?: Parameters<Browser['newContext']>[0];
  },
): Promise<Page> {
  const { page: ownerPage, api } = await instanceOwnerSession(browser);
  const created = await api.post('/api/v1/factories', { data: { name: options.factory.name, slug: options.factory.slug } });
  expect(created.status(), await created.text()).toBe(201);
  const inviteByApi = async (email: string, role: string): Promise<string> => {
    const invited = await api.post(`/api/v1/factories/${options.factory.slug}/invitations`, { data: { email, role } });
    expect(invited.status(), await invited.text()).toBe(201);
    return ((await invited.json()) as { url: string }).url;
  };
  const adminLink = await inviteByApi(options.admin.email, 'admin');
  const memberLink = await inviteByApi(options.member.email, options.role);

  const memberPage = await (await browser.newContext()).newPage();
  await acceptWithNewAccount(memberPage, memberLink, options.member);
  await memberPage.context().close();

  const page = await (await browser.newContext(options.contextOptions)).newPage();
  await acceptWithNewAccount(page, adminLink, options.admin);

  // The owner leaves, so the factory's members are exactly the spec's two.
  await ownerPage.goto(`/f/${options.factory.slug}/members`);
  await ownerPage.getByRole('row').filter({ hasText: instanceOwner.email }).getByRole('button', { name: 'Remove' }).click();
  await ownerPage.locator('dialog[open]').getByRole('button', { name: 'Remove member' }).click();
  await expect(ownerPage).not.toHaveURL(new RegExp(`/f/${options.factory.slug}/`));
  return page;
}

/**
 * A serial spec's own factory (setUpFactory, after the first run where the
 * spec runs alone): made before the spec's tests, its admin's page handed to
 * `opened`, and closed after them.
 */
export function useFactoryPage(options: Parameters<typeof setUpFactory>[1], opened: (page: Page) => void): void {
  let page: Page | undefined;
  test.beforeAll(async ({ browser }) => {
    await completeFirstRunIfNeeded(browser);
    page = await setUpFactory(browser, options);
    opened(page);
  });
  test.afterAll(async () => {
    await page?.context().close();
  });
}

/** Creates a bearer-token webhook on the Webhooks tab; returns its ingress URL, secret and UID. */
export async function createWebhook(page: Page, factorySlug: string, name: string): Promise<{ url: string; secret: string; uid: string }> {
  await page.goto(`/f/${factorySlug}/automations/webhooks/new`);
  const form = page.getByRole('form', { name: 'New webhook' });
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByRole('heading', { name: 'Webhook created' })).toBeVisible();
  const url = await page.getByLabel('Ingress URL').inputValue();
  const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
  rememberSecrets(secret);
  return { url, secret, uid: new URL(url).pathname.split('/').at(-1)! };
}

/**
 * Calls a server action the way any HTTP client can, without its page: what
 * an attacker would do to get around a page that hides a form. Reads the
 * action's id from the build's manifest; returns the response text (React's
 * flight format, which carries the action's JSON result).
 */
export async function callServerAction(page: Page, pagePath: string, exportedName: string, args: unknown[]): Promise<string> {
  const distDir = process.env.NEXT_DIST_DIR ?? '.next';
  const manifest = JSON.parse(
    fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', distDir, 'server', 'server-reference-manifest.json'), 'utf8'),
  ) as { node: Record<string, { exportedName?: string }> };
  const id = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === exportedName)?.[0];
  if (!id) throw new Error(`No server action named ${exportedName} in the build`);
  return page.evaluate(
    async ({ pagePath, id, args }) => {
      const response = await fetch(pagePath, {
        method: 'POST',
        headers: { 'Next-Action': id, 'Content-Type': 'text/plain;charset=UTF-8', Accept: 'text/x-component' },
        body: JSON.stringify(args),
      });
      return response.text();
    },
    { pagePath, id, args },
  );
}
