import { expect, test, type Locator } from '@playwright/test';
import { completeFirstRunIfNeeded, instanceOwner, signIn } from './helpers';

// A form is usable once React runs it, never before: until the page has
// hydrated, its controls are disabled, so a quick click or Enter cannot
// submit it natively (which would put what was typed, a password or a team
// secret, into the URL). Meanwhile the controls keep their normal look. A
// context without JavaScript shows the page as it is before hydration.

async function looks(control: Locator): Promise<Record<string, string>> {
  return control.evaluate((element) => {
    const style = getComputedStyle(element);
    return { background: style.backgroundColor, color: style.color, opacity: style.opacity, shadow: style.boxShadow };
  });
}

test('before hydration a form cannot be submitted, and it looks as it does after', async ({ browser }) => {
  await completeFirstRunIfNeeded(browser);
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, instanceOwner.email, instanceOwner.password);
  await page.goto('/factories/new');
  const name = page.getByRole('textbox', { name: 'Name', exact: true });
  const create = page.getByRole('button', { name: 'Create factory' });
  await expect(create).toBeEnabled();
  const hydrated = { name: await looks(name), create: await looks(create) };

  const frozen = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() });
  const still = await frozen.newPage();
  await still.goto('/factories/new');
  const stillName = still.getByRole('textbox', { name: 'Name', exact: true });
  const stillCreate = still.getByRole('button', { name: 'Create factory' });
  await expect(stillName).toBeDisabled();
  await expect(stillCreate).toBeDisabled();
  await expect(still.locator('form').filter({ has: stillCreate })).toHaveAttribute('method', 'post');
  expect({ name: await looks(stillName), create: await looks(stillCreate) }).toEqual(hydrated);

  // The sign-in form the same way: no password can reach a URL.
  const anonymous = await browser.newContext({ javaScriptEnabled: false });
  const signInPage = await anonymous.newPage();
  await signInPage.goto('/signin');
  await expect(signInPage.getByLabel('Password')).toBeDisabled();
  await expect(signInPage.getByRole('button', { name: 'Sign in' })).toBeDisabled();

  await Promise.all([context.close(), frozen.close(), anonymous.close()]);
});
