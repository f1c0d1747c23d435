import { expect, test, type Browser, type Page } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { bearer } from '../fixtures/api';
import { acceptWithNewAccount, callServerAction, createApiToken, instanceOwner, invite, screenshot, signIn, signOut } from './helpers';

// One journey on an empty server (default configuration: sign-up closed,
// factories created by instance admins): first run, sign out and in, sign-up
// refused, invitations (new and existing accounts; reused, revoked links),
// members management, what a viewer sees, factory creation refused, the
// Instance page (disabling an account), the open redirect refused, and the
// sign-in throttle (3 failures per account in 15 s on this server).

const admin = instanceOwner;
/** The browser server's TRIPLINE_SIGNIN_WINDOW_SECONDS (e2e/global-setup.ts). */
const windowSeconds = 15;
const bob = { name: 'Bob Viewer', email: 'bob@acme.test', password: 'bob password 123' };
const cy = { name: 'Cy', email: 'cy@acme.test', password: 'cy password 1234' };

async function freshPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test.describe.serial('accounts, invitations, factories, members and the instance', () => {
  let page: Page;
  let bobLink: string;

  test.beforeAll(async ({ browser }) => {
    page = await freshPage(browser);
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

  test('first-run setup creates the instance admin and the factory and signs in', async () => {
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
    // The first account runs the instance.
    await expect(page.getByRole('navigation', { name: 'Instance' }).getByRole('link', { name: 'Instance' })).toBeVisible();
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
    // What the page's own scripts can read of the session: who is signed in, never the session's ID.
    const shown = await page.evaluate(async () => (await fetch('/api/auth/session')).json());
    expect(shown).toEqual({ user: { name: admin.name, email: admin.email }, expires: expect.any(String) });
  });

  test('sign-up is closed by default: the page explains invitations, and the action refuses too', async ({ browser }) => {
    const visitor = await freshPage(browser);
    await visitor.goto('/signup');
    await expect(visitor.getByRole('heading', { name: 'Sign-up is by invitation' })).toBeVisible();
    await expect(visitor.getByRole('button', { name: 'Create account' })).toHaveCount(0);
    await expect(visitor.getByLabel('Password')).toHaveCount(0);
    await screenshot(visitor, 'signup-closed');
    await visitor.goto('/signin');
    await expect(visitor.getByRole('link', { name: /Sign up/ })).toHaveCount(0);
    await expect(visitor.getByText('New here? Ask an admin for an invitation link.')).toBeVisible();

    // Calling the action directly, without the page, is refused as well and creates nothing.
    const answer = await callServerAction(visitor, '/signup', 'signUpAction', [{ email: 'mallory@evil.test', password: 'mallory password 1' }]);
    expect(answer).toContain('"ok":false');
    expect(answer).toContain('Sign-up on this Tripline is by invitation');
    await visitor.goto('/signin');
    await visitor.getByLabel('Email').fill('mallory@evil.test');
    await visitor.getByLabel('Password').fill('mallory password 1');
    await visitor.getByRole('button', { name: 'Sign in' }).click();
    await expect(visitor.getByRole('alert').filter({ hasText: 'The email or password is incorrect.' })).toBeVisible();
    await visitor.context().close();
  });

  test('an admin invites a new person: the link is shown once and creates their account in the factory', async ({ browser }) => {
    bobLink = await invite(page, 'acme-operations', bob.email, 'viewer');
    await expect(page.getByText(`Invitation for ${bob.email} (Viewer) created`)).toBeVisible();
    await screenshot(page, 'members-invitation-created');
    // Listed as pending, never with its link again.
    await page.reload();
    await expect(page.getByLabel('Invitation link')).toHaveCount(0);
    const pending = page.getByRole('row').filter({ hasText: bob.email });
    await expect(pending.getByText('Viewer')).toBeVisible();
    await expect(page.getByText(bobLink)).toHaveCount(0);
    await screenshot(page, 'members-pending-invitations');

    const bobPage = await freshPage(browser);
    await bobPage.goto(bobLink);
    await expect(bobPage.getByRole('heading', { name: 'Join Acme Operations on Tripline' })).toBeVisible();
    await expect(bobPage.getByLabel('Email')).toHaveValue(bob.email);
    await expect(bobPage.getByLabel('Email')).toHaveAttribute('readonly', '');
    await screenshot(bobPage, 'invitation-new-account');
    await acceptWithNewAccount(bobPage, bobLink, bob);
    await expect(bobPage).toHaveURL(/\/f\/acme-operations\/automations$/);
    await expect(bobPage.getByText('Viewer').first()).toBeVisible();
    await bobPage.context().close();

    await page.reload();
    const bobRow = page.getByRole('row').filter({ hasText: bob.email });
    await expect(bobRow.getByLabel(`Role of ${bob.email}`)).toHaveValue('viewer');
    await expect(page.getByRole('heading', { name: /pending invitation/ })).toHaveCount(0);
  });

  test('a used link is refused with a clear message; inviting a member is refused', async ({ browser }) => {
    const again = await freshPage(browser);
    await again.goto(bobLink);
    await expect(again.getByRole('heading', { name: 'This invitation cannot be used' })).toBeVisible();
    await expect(again.getByText(/has already been used: each link works once/)).toBeVisible();
    await expect(again.getByRole('button', { name: 'Create account and join' })).toHaveCount(0);
    await screenshot(again, 'invitation-used');
    await again.goto('/invite/inv_not-a-real-token');
    await expect(again.getByText(/This invitation link is not valid/)).toBeVisible();
    await again.context().close();

    await page.goto('/f/acme-operations/members');
    const form = page.getByRole('form', { name: 'Invite someone' });
    await form.getByLabel('Email').fill(bob.email);
    await form.getByRole('button', { name: 'Create invitation' }).click();
    await expect(form.getByText('This person is already a member')).toBeVisible();
  });

  test('a revoked link stops working at once', async ({ browser }) => {
    const link = await invite(page, 'acme-operations', 'dan@acme.test', 'editor');
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'dan@acme.test' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Revoke invitation' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'dan@acme.test' })).toHaveCount(0);

    const dan = await freshPage(browser);
    await dan.goto(link);
    await expect(dan.getByText(/This invitation to Acme Operations was revoked/)).toBeVisible();
    await dan.context().close();
  });

  test('the last admin cannot be demoted', async () => {
    await page.goto('/f/acme-operations/members');
    const adaRow = page.getByRole('row').filter({ hasText: admin.email });
    await adaRow.getByLabel(`Role of ${admin.email}`).selectOption('viewer');
    await expect(adaRow.getByRole('alert')).toHaveText(/at least one admin/);
    // The role picker is described by the refusal, for a screen reader on the control.
    await expect(adaRow.getByLabel(`Role of ${admin.email}`)).toHaveAccessibleDescription(/at least one admin/);
    await page.reload();
    await expect(page.getByLabel(`Role of ${admin.email}`)).toHaveValue('admin');
  });

  test('a viewer sees no admin actions', async ({ browser }) => {
    const viewerPage = await freshPage(browser);
    await signIn(viewerPage, bob.email, bob.password);
    await expect(viewerPage).toHaveURL(/\/f\/acme-operations\/automations$/);
    await viewerPage.goto('/f/acme-operations/members');
    await expect(viewerPage.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
    await expect(viewerPage.getByRole('row').filter({ hasText: admin.email })).toBeVisible();
    await expect(viewerPage.getByRole('form', { name: 'Invite someone' })).toHaveCount(0);
    await expect(viewerPage.getByRole('button', { name: 'Remove' })).toHaveCount(0);
    await expect(viewerPage.getByRole('columnheader', { name: 'Manage' })).toHaveCount(0);
    await expect(viewerPage.getByRole('navigation', { name: 'Instance' })).toHaveCount(0);
    await screenshot(viewerPage, 'members-viewer');
    await viewerPage.context().close();
  });

  test('only instance admins create factories: others see why, and the action refuses', async ({ browser }) => {
    const bobPage = await freshPage(browser);
    await signIn(bobPage, bob.email, bob.password);
    await bobPage.goto('/factories/new');
    await expect(bobPage.getByRole('heading', { name: 'Only instance admins create factories here' })).toBeVisible();
    await expect(bobPage.getByRole('button', { name: 'Create factory' })).toHaveCount(0);
    await bobPage.locator('summary', { hasText: 'Switch factory' }).click();
    await expect(bobPage.getByRole('link', { name: 'New factory' })).toHaveCount(0);
    await screenshot(bobPage, 'factory-creation-refused');
    const answer = await callServerAction(bobPage, '/factories/new', 'createFactoryAction', [{ name: 'Bob Co', slug: 'bob-co' }]);
    expect(answer).toContain('"ok":false');
    expect(answer).toContain('Only instance admins can create factories');
    expect((await bobPage.goto('/f/bob-co/automations'))?.status()).toBe(404);
    // The Instance page does not exist for them.
    expect((await bobPage.goto('/instance'))?.status()).toBe(404);
    await bobPage.context().close();
  });

  test('an existing account signs in from an invitation sent to another address and joins, told which account joins', async ({ browser }) => {
    await page.goto('/factories/new');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Globex Labs');
    await page.getByRole('button', { name: 'Create factory' }).click();
    await expect(page).toHaveURL(/\/f\/globex-labs\/automations$/);
    const link = await invite(page, 'globex-labs', 'bob.work@acme.test', 'editor');

    const bobPage = await freshPage(browser);
    await bobPage.goto(link);
    await bobPage.getByRole('link', { name: 'Have an account? Sign in to accept' }).click();
    await expect(bobPage).toHaveURL(/\/signin\?callbackUrl=/);
    await bobPage.getByLabel('Email').fill(bob.email);
    await bobPage.getByLabel('Password').fill(bob.password);
    await bobPage.getByRole('button', { name: 'Sign in' }).click();
    await expect(bobPage).toHaveURL(/\/invite\/inv_/);
    await expect(bobPage.getByText(`Accepting adds ${bob.email} to Globex Labs`)).toBeVisible();
    await expect(bobPage.getByText(`This invitation was sent to bob.work@acme.test, and you are signed in as ${bob.email}`)).toBeVisible();
    await screenshot(bobPage, 'invitation-existing-account');
    await bobPage.getByRole('button', { name: `Join Globex Labs as ${bob.email}` }).click();
    await expect(bobPage).toHaveURL(/\/f\/globex-labs\/automations$/);
    await expect(bobPage.getByText('Editor').first()).toBeVisible();
    await bobPage.context().close();
  });

  test('the server refuses a demoted admin who still has the admin page open', async ({ browser }) => {
    const link = await invite(page, 'acme-operations', cy.email, 'admin');
    const cyPage = await freshPage(browser);
    await acceptWithNewAccount(cyPage, link, cy);

    await cyPage.goto('/f/acme-operations/members');
    await expect(cyPage.getByRole('form', { name: 'Invite someone' })).toBeVisible();
    // An invitation Cy sends while an admin is only as good as Cy's role.
    const fayLink = await invite(cyPage, 'acme-operations', 'fay@acme.test', 'editor');
    await cyPage.goto('/f/acme-operations/members');

    // Ada demotes Cy; Cy's page still shows the admin controls.
    await page.goto('/f/acme-operations/members');
    await page.getByRole('row').filter({ hasText: cy.email }).getByLabel(`Role of ${cy.email}`).selectOption('viewer');
    await expect(page.getByLabel(`Role of ${cy.email}`)).toHaveValue('viewer');
    await page.reload();
    await expect(page.getByLabel(`Role of ${cy.email}`)).toHaveValue('viewer');

    const cyForm = cyPage.getByRole('form', { name: 'Invite someone' });
    await cyForm.getByLabel('Email').fill('eve@acme.test');
    await cyForm.getByRole('button', { name: 'Create invitation' }).click();
    await expect(cyPage.getByRole('alert').filter({ hasText: 'This needs the admin role in Acme Operations' })).toBeVisible();
    await cyPage.context().close();

    // Cy's invitation went with Cy's role: no longer pending, and its link is refused.
    await expect(page.getByRole('row').filter({ hasText: 'fay@acme.test' })).toHaveCount(0);
    const fay = await freshPage(browser);
    await fay.goto(fayLink);
    await expect(fay.getByText('This invitation to Acme Operations is no longer valid: the admin who sent it is no longer an admin of Acme Operations. Ask a current admin for a new one.')).toBeVisible();
    await expect(fay.getByRole('button', { name: 'Create account and join' })).toHaveCount(0);
    const answer = await callServerAction(fay, new URL(fayLink).pathname, 'acceptWithNewAccountAction', [{ token: new URL(fayLink).pathname.split('/').pop(), name: 'Fay', password: 'fay password 123' }]);
    expect(answer).toContain('"ok":false');
    expect(answer).toContain('is no longer valid');
    await fay.context().close();
  });

  test('the public password forms refuse before hashing and are throttled per address', async ({ browser }) => {
    // Up to three rounds, each of up to a 15 s window and the wait the server names after it.
    test.setTimeout(budget(60_000) + 3 * 2 * windowSeconds * 1000);
    // First run after setup, and accepting a link that is not valid: each is
    // refused at once, and each refusal takes a point of the address's
    // budget (30 on this server, a window of 15 s that starts at its first
    // point), after which the forms answer that they are paused.
    //
    // No verdict here depends on this machine's speed: the requests go in
    // batches until one is refused, and the budget is checked within the
    // window the server itself reports ("try again in N seconds").
    const windowMs = windowSeconds * 1000;
    const visitor = await freshPage(browser);
    await visitor.goto('/signin');
    const setUp = { name: 'Mallory', email: 'mallory@evil.test', password: 'mallory password 1', factoryName: 'Evil', factorySlug: 'evil' };
    const unknownToken = `inv_${'A'.repeat(43)}`;
    const acceptUnknown = () =>
      callServerAction(visitor, `/invite/${unknownToken}`, 'acceptWithNewAccountAction', [{ token: unknownToken, name: 'Mallory', password: 'mallory password 1' }]);
    type Answer = { start: number; end: number; text: string };
    const timed = async (call: () => Promise<string>): Promise<Answer> => {
      const start = Date.now();
      const text = await call();
      return { start, end: Date.now(), text };
    };
    const limited = (answer: Answer) => answer.text.includes('"code":"rate_limited"');

    let checkedInvitation = false;
    for (let round = 0; round < 3 && !checkedInvitation; round += 1) {
      // Batches of 6 (the browser's connections to one host) until a refusal.
      const answers: Answer[] = [];
      while (!answers.some(limited) && answers.length < 120) {
        answers.push(...(await Promise.all(Array.from({ length: 6 }, () => timed(() => callServerAction(visitor, '/setup', 'completeFirstRunAction', [setUp]))))));
      }
      const refusal = answers.find(limited);
      expect(refusal, 'the address budget refuses a burst of 120 at the latest').toBeDefined();
      const wait = Number(/try again in (\d+) seconds?\./.exec(refusal!.text)?.[1]);
      expect(refusal!.text).toMatch(/Too many attempts from your address\. For your security, this form is paused: try again in \d+ seconds?\./);
      const before = answers.filter((answer) => answer.end <= refusal!.start);
      expect(before.every((answer) => answer.text.includes('Tripline is already set up. Sign in instead.'))).toBe(true);
      // The refusing window ends at most `wait` s after the refusal's answer,
      // so it began no later than 15 s before that: every answer sent after
      // that moment and back before the refusal was sent spent this window's
      // points, and there are at most 30 of them.
      const windowBegunBy = refusal!.end + wait * 1000 - windowMs;
      expect(before.filter((answer) => answer.start >= windowBegunBy).length).toBeLessThanOrEqual(30);
      if (round === 0) {
        // The journeys before spend a few points of the first window at most.
        expect(answers.filter((answer) => !limited(answer)).length).toBeGreaterThan(20);
      }
      // A well-formed link that matches no invitation, sent while the window
      // certainly lasts (it ends no earlier than wait - 1 s after the refusal
      // was sent), is refused by the same budget. Sent later, it proves
      // nothing, and the round starts again.
      const invitation = await timed(acceptUnknown);
      if (invitation.start < refusal!.start + (wait - 1) * 1000) {
        expect(invitation.text).toContain('"code":"rate_limited"');
        checkedInvitation = true;
      } else {
        // The refusal came in the window's last second (earlier journeys spent its first points):
        // the next round starts once that window is over, on a window of its own, rather than
        // meeting the same refusal again within that second.
        await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 500));
      }
    }
    expect(checkedInvitation, 'an invitation was sent while a spent window lasted').toBe(true);
    // The address's budget also covers sign-in: wait for the window before the next journeys sign in.
    // eslint-disable-next-line no-restricted-syntax -- about time passing: the server's 15 s window, which began no later than the last refusal, must elapse.
    await visitor.waitForTimeout(windowMs + 500);
    expect(await acceptUnknown()).toContain('This invitation link is not valid');
    await visitor.context().close();
  });

  test('the Instance page disables an account: its session ends and it cannot sign in until enabled', async ({ browser }) => {
    const cyPage = await freshPage(browser);
    await signIn(cyPage, cy.email, cy.password);

    await page.locator('summary', { hasText: 'Account menu' }).click();
    await page.getByRole('link', { name: 'Instance: accounts and factories' }).click();
    await expect(page).toHaveURL(/\/instance$/);
    await expect(page.getByRole('heading', { name: 'Instance', level: 1 })).toBeVisible();
    await expect(page.getByRole('heading', { name: '3 accounts' })).toBeVisible();
    const globex = page.getByRole('row').filter({ hasText: 'globex-labs' });
    await expect(globex.getByRole('cell').nth(1)).toHaveText('2');
    // Nobody disables themselves.
    await expect(page.getByRole('row').filter({ hasText: admin.email }).getByRole('button', { name: 'Disable' })).toHaveCount(0);

    const cyRow = page.getByRole('row').filter({ hasText: cy.email });
    await cyRow.getByRole('button', { name: 'Disable' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Disable account' }).click();
    // Exactly the status badge: the row's buttons and dialog run together as "Disable" + "Disable cy@...",
    // whose text holds "disabled" before anything is saved (that race made this test flaky).
    await expect(cyRow.getByText('Disabled', { exact: true })).toBeVisible();
    await expect(page.locator('dialog[open]')).toHaveCount(0);
    await screenshot(page, 'instance-page');

    await cyPage.reload();
    await expect(cyPage).toHaveURL(/\/signin/);
    await cyPage.getByLabel('Email').fill(cy.email);
    await cyPage.getByLabel('Password').fill(cy.password);
    await cyPage.getByRole('button', { name: 'Sign in' }).click();
    await expect(cyPage.getByRole('alert').filter({ hasText: 'This account is disabled' })).toBeVisible();
    // A wrong password never says "disabled".
    await cyPage.getByLabel('Password').fill('not cy password');
    await cyPage.getByRole('button', { name: 'Sign in' }).click();
    await expect(cyPage.getByRole('alert').filter({ hasText: 'The email or password is incorrect.' })).toBeVisible();

    await cyRow.getByRole('button', { name: 'Enable' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Enable account' }).click();
    await expect(cyRow.getByText('Active', { exact: true })).toBeVisible();
    await signIn(cyPage, cy.email, cy.password);
    await cyPage.context().close();
  });

  test('the open redirect is refused: a callbackUrl to another host lands on this one', async ({ browser, baseURL }) => {
    const origin = new URL(baseURL!).origin;
    for (const target of ['/%5Cevil.example/x', '//evil.example/x', 'https://evil.example/x', '/\\evil.example/x']) {
      // Signed in: the page redirects at once.
      await page.goto(`/signin?callbackUrl=${target}`);
      await expect(page).not.toHaveURL(/\/signin/);
      expect(new URL(page.url()).origin).toBe(origin);
    }
    // Signing in with it.
    const visitor = await freshPage(browser);
    await visitor.goto('/signin?callbackUrl=/%5Cevil.example/x');
    await visitor.getByLabel('Email').fill(bob.email);
    await visitor.getByLabel('Password').fill(bob.password);
    await visitor.getByRole('button', { name: 'Sign in' }).click();
    await expect(visitor).toHaveURL(/\/f\/acme-operations\/automations$/);
    expect(new URL(visitor.url()).origin).toBe(origin);
    // A same-origin target is still followed.
    await signOut(visitor);
    await visitor.goto('/signin?callbackUrl=/f/acme-operations/members');
    await visitor.getByLabel('Email').fill(bob.email);
    await visitor.getByLabel('Password').fill(bob.password);
    await visitor.getByRole('button', { name: 'Sign in' }).click();
    await expect(visitor).toHaveURL(/\/f\/acme-operations\/members$/);
    await visitor.context().close();
  });

  test('sign-in is throttled after repeated failures, the right password included, and works again later', async ({ browser }) => {
    const visitor = await freshPage(browser);
    await visitor.goto('/signin');
    const attempt = async (password: string) => {
      await visitor.getByLabel('Email').fill(cy.email);
      await visitor.getByLabel('Password').fill(password);
      await visitor.getByRole('button', { name: 'Sign in' }).click();
    };
    const alert = visitor.locator('form [role="alert"]');
    await attempt('wrong guess 1');
    await expect(alert).toHaveText('The email or password is incorrect.');
    await attempt('wrong guess 2');
    await expect(alert).toHaveText('The email or password is incorrect.');
    // The third failure spends this server's budget (TRIPLINE_SIGNIN_ACCOUNT_LIMIT=3).
    await attempt('wrong guess 3');
    await expect(alert).toHaveText(/Too many failed sign-in attempts\. For your security, sign-in is paused: try again in \d+ seconds?\./);
    await screenshot(visitor, 'signin-throttled');
    // The right password is refused while paused: guesses teach nothing.
    await attempt(cy.password);
    await expect(alert).toHaveText(/Too many failed sign-in attempts/);
    await expect(visitor).toHaveURL(/\/signin/);
    // After the window (TRIPLINE_SIGNIN_WINDOW_SECONDS=15) the right password works.
    // eslint-disable-next-line no-restricted-syntax -- about time passing: the window began no later than the attempts above, so it has ended however slowly this machine got here.
    await visitor.waitForTimeout(15_500);
    await attempt(cy.password);
    await expect(visitor).toHaveURL(/\/f\/acme-operations\/automations$/);
    await visitor.context().close();
  });

  test('user settings create and revoke an API token that works on the API', async ({ request }) => {
    await page.goto('/settings');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByText('Give the token a name')).toBeVisible();
    const token = await createApiToken(page, 'Deploy pipeline');
    await screenshot(page, 'settings-token-created');

    const listed = await request.get('/api/v1/factories', { headers: bearer(token) });
    expect(await listed.json()).toEqual({
      factories: [
        { slug: 'acme-operations', name: 'Acme Operations', role: 'admin' },
        { slug: 'globex-labs', name: 'Globex Labs', role: 'admin' },
      ],
      nextCursor: null,
      total: 2,
    });

    await page.reload();
    await expect(page.getByLabel('New API token')).toHaveCount(0);
    await page.getByRole('row').filter({ hasText: 'Deploy pipeline' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Revoke token' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'Deploy pipeline' })).toHaveCount(0);
    const revoked = await request.get('/api/v1/factories', { headers: bearer(token) });
    expect(revoked.status()).toBe(401);
  });
});
