import { request as playwrightRequest, type APIRequestContext } from '@playwright/test';
import { budget } from '../../scripts/speed.mjs';
import { expect, test } from '../fixtures/api';
import { seedUsers } from '../fixtures/seed';

// The sign-in budget (10 failures per account, 30 per address in 15 minutes)
// against attempts sent at once, over real HTTP through next-auth, on both
// databases. A budget read before the password check and counted after it
// let every attempt of a burst through; each attempt now takes its point
// before its password is looked at.
//
// It spends the seeded `loner` account's budget and 127.0.0.1's address
// budget on its server for 15 minutes: no other API spec signs in with a
// password.

const loner = seedUsers.find((user) => user.key === 'loner')!;

type Attempt = { password: string; error: string | null; session: boolean };

async function attempt(context: APIRequestContext, csrfToken: string, password: string): Promise<Attempt> {
  const response = await context.post('/api/auth/callback/credentials', {
    form: { csrfToken, email: loner.email, password, callbackUrl: '/', json: 'true' },
    maxRedirects: 0,
  });
  const setCookie = response.headersArray().filter((header) => header.name.toLowerCase() === 'set-cookie').map((header) => header.value);
  const location = response.headers()['location'] ?? ((await response.json().catch(() => ({}))) as { url?: string }).url ?? '';
  return { password, error: new URL(location, 'http://x').searchParams.get('error'), session: setCookie.some((cookie) => /session-token=[^;]/.test(cookie)) };
}

test('40 sign-in attempts sent at once: the right password after 30 wrong ones (budget 10) opens no session', async ({ baseURL }) => {
  test.setTimeout(budget(120_000));
  const context = await playwrightRequest.newContext({ baseURL });
  try {
    const { csrfToken } = (await (await context.get('/api/auth/csrf')).json()) as { csrfToken: string };
    const wrong = (n: number) => `wrong password ${n}`;
    // 30 wrong passwords at once, and the right one as soon as 10 of them have been
    // answered, while the others are still in flight. Each attempt takes its point before
    // its password is checked, so 10 answers mean the budget of 10 is spent: either all
    // 10 took a point, or one was already refused for it. (After the first answer only,
    // the right one could reach the budget on a slow machine while fewer than 10 of the
    // 30 had: a correct sign-in, and a test that depended on the machine's speed.) A
    // budget read before the check, the bug this guards against, checks all 30 first
    // ones: far fewer than 30 refusals below.
    const first = Array.from({ length: 30 }, (_, n) => attempt(context, csrfToken, wrong(n)));
    await new Promise<void>((resolve) => {
      let answered = 0;
      const count = () => {
        if (++answered === 10) resolve();
      };
      for (const pending of first) pending.then(count, count);
    });
    const rest = [attempt(context, csrfToken, loner.password), ...Array.from({ length: 9 }, (_, n) => attempt(context, csrfToken, wrong(30 + n)))];
    const attempts = await Promise.all([...first, ...rest]);

    const right = attempts.find((a) => a.password === loner.password)!;
    expect(right.session, 'the right password, past the budget, opened a session').toBe(false);
    expect(right.error).toMatch(/^Throttled:\d+$/);
    expect(attempts.filter((a) => a.session)).toEqual([]);
    // Every attempt is refused; those refused before their check outnumber those checked.
    expect(attempts.every((a) => a.error === 'CredentialsSignin' || a.error?.startsWith('Throttled:'))).toBe(true);
    expect(attempts.filter((a) => a.error?.startsWith('Throttled:')).length).toBeGreaterThanOrEqual(30);
  } finally {
    await context.dispose();
  }
});
