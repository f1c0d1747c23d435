import { expect, type Browser, type Page } from '@playwright/test';
import path from 'node:path';
import { rememberSecrets } from '../fixtures/secrets';

export const shotsDir = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true });
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
 * The browser server starts empty and the first visitor must complete the
 * first run; when a spec runs alone nobody has yet. Uses its own throwaway
 * account (`email`), so specs never depend on each other's users.
 */
export async function completeFirstRunIfNeeded(browser: Browser, email: string): Promise<void> {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/setup');
  if (new URL(page.url()).pathname === '/setup') {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('first run password');
    await page.getByLabel('Factory name').fill('First Run');
    await page.getByRole('button', { name: 'Create account and factory' }).click();
    await expect(page).toHaveURL(/\/f\/first-run\/automations$/);
  }
  await page.context().close();
}

/** Signs up on /signup; the new account lands on "create a factory". */
export async function signUp(page: Page, user: TestUser): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel(/^Name/).fill(user.name);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/factories\/new/);
}

/**
 * A fresh factory for one spec: signs up its admin (and a member, added with
 * a role on the Members page) and returns the admin's page.
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
  const memberPage = await (await browser.newContext()).newPage();
  await signUp(memberPage, options.member);
  await memberPage.context().close();

  const page = await (await browser.newContext(options.contextOptions)).newPage();
  await signUp(page, options.admin);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(options.factory.name);
  await page.getByRole('button', { name: 'Create factory' }).click();
  await expect(page).toHaveURL(new RegExp(`/f/${options.factory.slug}/automations$`));

  await page.goto(`/f/${options.factory.slug}/members`);
  const form = page.getByRole('form', { name: 'Add a member' });
  await form.getByLabel('Email').fill(options.member.email);
  await form.getByLabel('Role').selectOption(options.role);
  await form.getByRole('button', { name: 'Add member' }).click();
  await expect(page.getByText(`${options.member.email} was added.`)).toBeVisible();
  return page;
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
