import { expect, type Page } from '@playwright/test';
import path from 'node:path';

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
