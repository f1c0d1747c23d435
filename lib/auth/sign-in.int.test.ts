import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLimiters, signInWithPassword, type SignInLimiters } from '@/lib/auth/sign-in';
import { setUserDisabled } from '@/lib/instance/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/lib/testing/databases';
import { completeFirstRun, createUser } from '@/lib/users/service';

const password = 'a long enough password';

describe.each(testDatabaseKinds())('sign-in throttle on %s', (kind) => {
  let database: TestDatabase;
  let limiters: SignInLimiters;
  const attempt = (email: string, pass: string, address = '198.51.100.1') =>
    signInWithPassword({ email, password: pass, address }, { db: database.prisma, limiters });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { user } = await completeFirstRun({ email: 'owner@example.com', password, factoryName: 'Acme', factorySlug: 'acme' }, database.prisma);
    await createUser({ email: 'quiet@example.com', password }, database.prisma);
    const disabled = await createUser({ email: 'disabled@example.com', password }, database.prisma);
    await setUserDisabled(user.id, { userId: disabled.id, disabled: true }, database.prisma);
    limiters = createSignInLimiters(database, { accountLimit: 3, addressLimit: 5, windowSeconds: 2 });
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
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await attempt('owner@example.com', password, '198.51.100.5')).toMatchObject({ ok: true });
  });

  it('unknown emails are throttled exactly like accounts (the throttle reveals nothing)', async () => {
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push(await attempt('nobody@example.com', `guess ${i}`, `203.0.113.${i}`));
    expect(results.map((r) => (r.ok ? 'ok' : r.reason))).toEqual(['wrong', 'wrong', 'throttled', 'throttled']);
  });

  it('one address spraying many accounts is paused; "unknown" addresses only count per account', async () => {
    const address = '192.0.2.77';
    const reasons = [];
    for (let i = 0; i < 6; i += 1) {
      const result = await attempt(`spray${i}@example.com`, 'guess', address);
      reasons.push(result.ok ? 'ok' : result.reason);
    }
    expect(reasons).toEqual(['wrong', 'wrong', 'wrong', 'wrong', 'throttled', 'throttled']);
    expect(await attempt('quiet@example.com', password, address)).toMatchObject({ reason: 'throttled' });
    for (let i = 0; i < 6; i += 1) expect(await attempt(`unknown${i}@example.com`, 'guess', 'unknown')).toEqual({ ok: false, reason: 'wrong' });
  });
});
