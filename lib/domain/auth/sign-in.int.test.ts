import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLimiters, signInWithPassword, withAddressBudget, type SignInLimiters } from '@/lib/domain/auth/sign-in';
import { appError } from '@/tests/support/app-error';
import { setUserDisabled } from '@/lib/domain/instance/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { completeFirstRun, createUser } from '@/lib/domain/users/service';
import { budget } from '@/scripts/speed.mjs';

const password = 'a long enough password';
// The throttle's window in the test that waits for it to end: two seconds on machine C, longer on a
// slower machine, so that the attempts that must fall inside one window always do.
const windowSeconds = Math.ceil(budget(2_000) / 1000);

describe.each(testDatabaseKinds())('sign-in throttle on %s', (kind) => {
  let database: TestDatabase;
  let limiters: SignInLimiters;
  // The same budgets over a window no test outlasts, for the tests that only count (however slowly the machine runs them).
  let steady: SignInLimiters;
  const attempt = (email: string, pass: string, address = '198.51.100.1', use = limiters) =>
    signInWithPassword({ email, password: pass, address }, { db: database.prisma, limiters: use });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { user } = await completeFirstRun({ email: 'owner@example.com', password, factoryName: 'Acme', factorySlug: 'acme' }, database.prisma);
    await createUser({ email: 'quiet@example.com', password }, database.prisma);
    const disabled = await createUser({ email: 'disabled@example.com', password }, database.prisma);
    await setUserDisabled(user.id, { userId: disabled.id, disabled: true }, database.prisma);
    limiters = createSignInLimiters(database, { accountLimit: 3, addressLimit: 5, windowSeconds });
    steady = createSignInLimiters(database, { accountLimit: 3, addressLimit: 5, windowSeconds: 600 });
  });
  afterAll(() => database?.drop());

  it('signs in; a wrong password is "wrong"; a disabled account is told only with the right password', async () => {
    expect(await attempt('owner@example.com', password)).toMatchObject({ ok: true, user: { email: 'owner@example.com', instanceAdmin: true } });
    expect(await attempt('disabled@example.com', password)).toEqual({ ok: false, reason: 'disabled' });
    expect(await attempt('disabled@example.com', 'wrong password')).toEqual({ ok: false, reason: 'wrong' });
  });

  it('after N failures an account is paused, the right password included, then works again', async () => {
    expect(await attempt('Owner@example.com', 'wrong 1', '198.51.100.2')).toEqual({ ok: false, reason: 'wrong' });
    expect(await attempt('owner@example.com', 'wrong 2', '198.51.100.3')).toEqual({ ok: false, reason: 'wrong' });
    const third = await attempt('owner@example.com', 'wrong 3', '198.51.100.4');
    expect(third).toMatchObject({ ok: false, reason: 'throttled' });
    expect((third as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(await attempt('owner@example.com', password, '198.51.100.5')).toMatchObject({ ok: false, reason: 'throttled' });
    // Other accounts are not affected.
    expect(await attempt('quiet@example.com', password, '198.51.100.6')).toMatchObject({ ok: true });
    // About time passing: the window must end.
    await new Promise((resolve) => setTimeout(resolve, windowSeconds * 1000 + 100));
    expect(await attempt('owner@example.com', password, '198.51.100.5')).toMatchObject({ ok: true });
  });

  it('unknown emails are throttled exactly like accounts (the throttle reveals nothing)', async () => {
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push(await attempt('nobody@example.com', `guess ${i}`, `203.0.113.${i}`, steady));
    expect(results.map((r) => (r.ok ? 'ok' : r.reason))).toEqual(['wrong', 'wrong', 'throttled', 'throttled']);
  });

  it('one address spraying many accounts is paused; "unknown" addresses only count per account', async () => {
    const address = '192.0.2.77';
    const reasons = [];
    for (let i = 0; i < 6; i += 1) {
      const result = await attempt(`spray${i}@example.com`, 'guess', address, steady);
      reasons.push(result.ok ? 'ok' : result.reason);
    }
    expect(reasons).toEqual(['wrong', 'wrong', 'wrong', 'wrong', 'throttled', 'throttled']);
    expect(await attempt('quiet@example.com', password, address, steady)).toMatchObject({ reason: 'throttled' });
    for (let i = 0; i < 6; i += 1) expect(await attempt(`unknown${i}@example.com`, 'guess', 'unknown', steady)).toEqual({ ok: false, reason: 'wrong' });
  });
  it('a burst gets no more guesses than the budget: the right password after more wrong ones than it allows is refused', async () => {
    await createUser({ email: 'burst@example.com', password }, database.prisma);
    // 12 at once, the right one last: only the first 3 to take a point (the budget) are checked.
    const passwords = Array.from({ length: 12 }, (_, i) => (i === 11 ? password : `wrong ${i}`));
    const results = await Promise.all(passwords.map((pass, i) => attempt('burst@example.com', pass, `198.18.0.${i}`, steady)));
    expect(results.filter((result) => result.ok)).toEqual([]);
    expect(results.filter((result) => !result.ok && result.reason === 'wrong').length).toBeLessThanOrEqual(3);
  });

  it('one address bursting over many accounts is bounded by the address budget', async () => {
    // 30 at once from one address, each for another email, the right password last: the address
    // has 5 points, so only the first 5 to take one are checked. (Points are taken in the order
    // the attempts reach the limiter, which on PostgreSQL's pool may differ a little from the
    // order they were sent in: the right password is sent last, far past the budget.)
    const tries = Array.from({ length: 30 }, (_, i) => (i === 29 ? ['quiet@example.com', password] : [`burst${i}@example.com`, 'guess']));
    const results = await Promise.all(tries.map(([email, pass]) => attempt(email!, pass!, '198.18.1.1', steady)));
    expect(results.filter((result) => result.ok)).toEqual([]);
    expect(results.at(-1)).toMatchObject({ ok: false, reason: 'throttled' });
  });

  it('a success gives its point back: the address keeps its whole budget', async () => {
    for (let i = 0; i < 8; i += 1) expect(await attempt('quiet@example.com', password, '198.18.2.1', steady)).toMatchObject({ ok: true });
  });

  it('public password forms share the address budget: taken first, given back on success, 429 once spent', async () => {
    const address = '198.18.3.1';
    for (let i = 0; i < 8; i += 1) expect(await withAddressBudget(address, async () => 'done', steady)).toBe('done');
    const failures = await Promise.all(
      Array.from({ length: 8 }, () => withAddressBudget(address, async () => Promise.reject(new Error('refused')), steady).catch((e: Error) => e)),
    );
    expect(failures.filter((error) => error.message === 'refused').length).toBe(5);
    const spent = await appError(withAddressBudget(address, async () => 'done', steady));
    expect(spent).toMatchObject({ code: 'rate_limited' });
    expect(spent.message).toMatch(/^Too many attempts from your address\. For your security, this form is paused: try again in \d+ (seconds?|minutes?)\.$/);
    // Sign-in from that address is paused too; "unknown" is never throttled.
    expect(await attempt('quiet@example.com', password, address, steady)).toMatchObject({ reason: 'throttled' });
    expect(await withAddressBudget('unknown', async () => 'done', steady)).toBe('done');
  });
});
