import { expect, test, type Browser, type Page } from '@playwright/test';
import { screenshot, signIn, signOut } from './helpers';

// One journey on an empty server: first run, sign out and in, sign-up,
// members management, and what a viewer sees and may do.

const admin = { name: 'Ada Admin', email: 'ada@acme.test', password: 'ada password 123' };
const bob = { email: 'bob@acme.test', password: 'bob password 123' };
const cy = { email: 'cy@acme.test', password: 'cy password 1234' };

async function signUp(browser: Browser, user: { email: string; password: string }): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/signup');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/factories\/new/);
  await expect(page.getByText('You are not a member of any factory yet')).toBeVisible();
  return page;
}

test.describe.serial('accounts, factories and members', () => {
  let page: Page;

  test.beforeAll(async ({ browser }) => {
    page = await (await browser.newContext()).newPage();
  });

  test('the first visitor is sent to the first-run page, which validates every field', async () => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.getByRole('heading', { name: 'Set up Tripline' })).toBeVisible();
    await page.getByRole('button', { name: 'Create account and factory' }).click();
    await expect(page.getByText('Enter an email address')).toBeVisible();
    await expect(page.getByText('Use at least 10 characters')).toBeVisible();
    await expect(page.getByText('Enter a name')).toBeVisible();
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('short');
    await page.getByLabel('Slug').fill('Bad Slug!');
    await page.getByRole('button', { name: 'Create account and factory' }).click();
    await expect(page.getByText('Enter a valid email address')).toBeVisible();
    await expect(page.getByText(/Use lowercase letters, digits and single hyphens/)).toBeVisible();
    await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true');
    await screenshot(page, 'first-run-errors');
  });

  test('first-run setup creates the admin and the factory and signs in', async () => {
    await page.getByLabel(/^Name/).fill(admin.name);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByLabel('Slug').fill('');
    await page.getByLabel('Factory name').fill('Acme Operations');
    await expect(page.getByLabel('Slug')).toHaveValue('acme-operations');
    await page.getByRole('button', { name: 'Create account and factory' }).click();
    await expect(page).toHaveURL(/\/f\/acme-operations\/automations$/);
    await expect(page.getByRole('heading', { name: 'Automations', level: 1 })).toBeVisible();
    await expect(page.getByText('Acme Operations').first()).toBeVisible();
    await screenshot(page, 'dashboard-automations');
    // The first-run page is gone once an account exists.
    await page.goto('/setup');
    await expect(page).toHaveURL(/\/f\/acme-operations\/automations$/);
  });

  test('sign out, a wrong password, then sign in', async () => {
    await signOut(page);
    await page.goto('/f/acme-operations/members');
    await expect(page).toHaveURL(/\/signin/);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'The email or password is incorrect.' })).toBeVisible();
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/f\/acme-operations\/automations$/);
  });

  test('admins add existing accounts as members, with clear errors', async ({ browser }) => {
    const bobPage = await signUp(browser, bob);
    await bobPage.context().close();

    await page.goto('/f/acme-operations/members');
    const form = page.getByRole('form', { name: 'Add a member' });
    await form.getByLabel('Email').fill('nobody@acme.test');
    await form.getByRole('button', { name: 'Add member' }).click();
    await expect(form.getByText(/No Tripline account uses this email/)).toBeVisible();

    await form.getByLabel('Email').fill(bob.email);
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('button', { name: 'Add member' }).click();
    await expect(page.getByText(`${bob.email} was added.`)).toBeVisible();
    const bobRow = page.getByRole('row').filter({ hasText: bob.email });
    await expect(bobRow.getByLabel(`Role of ${bob.email}`)).toHaveValue('viewer');

    await form.getByLabel('Email').fill(bob.email);
    await form.getByRole('button', { name: 'Add member' }).click();
    await expect(form.getByText('This person is already a member')).toBeVisible();
    await screenshot(page, 'members-admin');
  });

  test('the last admin cannot be demoted', async () => {
    const adaRow = page.getByRole('row').filter({ hasText: admin.email });
    await adaRow.getByLabel(`Role of ${admin.email}`).selectOption('viewer');
    await expect(adaRow.getByRole('alert')).toHaveText(/at least one admin/);
    await page.reload();
    await expect(page.getByLabel(`Role of ${admin.email}`)).toHaveValue('admin');
  });

  test('a viewer sees no admin actions', async ({ browser }) => {
    const viewerPage = await (await browser.newContext()).newPage();
    await signIn(viewerPage, bob.email, bob.password);
    await expect(viewerPage).toHaveURL(/\/f\/acme-operations\/automations$/);
    await viewerPage.goto('/f/acme-operations/members');
    await expect(viewerPage.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
    await expect(viewerPage.getByRole('row').filter({ hasText: admin.email })).toBeVisible();
    await expect(viewerPage.getByRole('form', { name: 'Add a member' })).toHaveCount(0);
    await expect(viewerPage.getByRole('button', { name: 'Remove' })).toHaveCount(0);
    await expect(viewerPage.getByRole('columnheader', { name: 'Manage' })).toHaveCount(0);
    await screenshot(viewerPage, 'members-viewer');
    await viewerPage.context().close();
  });

  test('the server refuses a demoted admin who still has the admin page open', async ({ browser }) => {
    const cyPage = await signUp(browser, cy);
    await page.goto('/f/acme-operations/members');
    const form = page.getByRole('form', { name: 'Add a member' });
    await form.getByLabel('Email').fill(cy.email);
    await form.getByLabel('Role').selectOption('admin');
    await form.getByRole('button', { name: 'Add member' }).click();
    await expect(page.getByText(`${cy.email} was added.`)).toBeVisible();

    await cyPage.goto('/f/acme-operations/members');
    await expect(cyPage.getByRole('form', { name: 'Add a member' })).toBeVisible();

    // Ada demotes Cy; Cy's page still shows the admin controls.
    await page.getByRole('row').filter({ hasText: cy.email }).getByLabel(`Role of ${cy.email}`).selectOption('viewer');
    await expect(page.getByLabel(`Role of ${cy.email}`)).toHaveValue('viewer');
    await page.reload();
    await expect(page.getByLabel(`Role of ${cy.email}`)).toHaveValue('viewer');

    const cyForm = cyPage.getByRole('form', { name: 'Add a member' });
    await cyForm.getByLabel('Email').fill(bob.email);
    await cyForm.getByRole('button', { name: 'Add member' }).click();
    await expect(cyPage.getByRole('alert').filter({ hasText: 'This needs the admin role in Acme Operations' })).toBeVisible();
    await cyPage.context().close();
  });

  test('admins change roles and remove members, who then lose access', async ({ browser }) => {
    await page.goto('/f/acme-operations/members');
    const bobRow = page.getByRole('row').filter({ hasText: bob.email });
    await bobRow.getByLabel(`Role of ${bob.email}`).selectOption('editor');
    // The select follows the saved role: it shows "editor" once the action has finished.
    await expect(bobRow.getByLabel(`Role of ${bob.email}`)).toHaveValue('editor');
    await page.reload();
    await expect(page.getByLabel(`Role of ${bob.email}`)).toHaveValue('editor');

    await page.getByRole('row').filter({ hasText: bob.email }).getByRole('button', { name: 'Remove' }).click();
    const dialog = page.locator('dialog[open]');
    await expect(dialog.getByRole('heading', { name: `Remove ${bob.email}?` })).toBeVisible();
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await expect(page.getByRole('row').filter({ hasText: bob.email })).toHaveCount(0);

    const bobPage = await (await browser.newContext()).newPage();
    await signIn(bobPage, bob.email, bob.password);
    await expect(bobPage).toHaveURL(/\/factories\/new/);
    const response = await bobPage.goto('/f/acme-operations/members');
    expect(response?.status()).toBe(404);
    await bobPage.context().close();
  });

  test('user settings create and revoke an API token that works on the API', async ({ request }) => {
    await page.goto('/settings');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByText('Give the token a name')).toBeVisible();
    await page.getByLabel('Token name').fill('Deploy pipeline');
    await page.getByRole('button', { name: 'Create token' }).click();
    const tokenField = page.getByLabel('New API token');
    await expect(tokenField).toHaveValue(/^trl_/);
    const token = await tokenField.inputValue();
    await screenshot(page, 'settings-token-created');

    const listed = await request.get('/api/v1/factories', { headers: { Authorization: `Bearer ${token}` } });
    expect(await listed.json()).toEqual({ factories: [{ slug: 'acme-operations', name: 'Acme Operations', role: 'admin' }] });

    await page.reload();
    await expect(page.getByLabel('New API token')).toHaveCount(0);
    await page.getByRole('row').filter({ hasText: 'Deploy pipeline' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Revoke token' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'Deploy pipeline' })).toHaveCount(0);
    const revoked = await request.get('/api/v1/factories', { headers: { Authorization: `Bearer ${token}` } });
    expect(revoked.status()).toBe(401);
  });
});
