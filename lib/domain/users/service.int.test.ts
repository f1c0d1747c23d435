import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiToken, createApiToken, listApiTokens, revokeApiToken } from '@/lib/domain/api-tokens/service';
import { createSession, deleteSession, getSessionUser } from '@/lib/domain/auth/sessions';
import { listFactoriesPage } from '@/lib/domain/factories/service';
import { AppError } from '@/lib/platform/http/errors';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { authenticateWithPassword, completeFirstRun, needsFirstRun } from '@/lib/domain/users/service';

describe.each(testDatabaseKinds())('accounts on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.drop());

  it('first run creates the admin and the factory once, even when two visitors race', async () => {
    const db = database.prisma;
    expect(await needsFirstRun(db)).toBe(true);
    const input = (email: string, slug: string) => ({
      email,
      password: 'a long enough password',
      factoryName: 'Acme Ops',
      factorySlug: slug,
    });
    const results = await Promise.allSettled([
      completeFirstRun(input('first@example.com', 'acme'), db),
      completeFirstRun(input('second@example.com', 'acme-2'), db),
    ]);
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
    expect(await db.user.count()).toBe(1);
    expect(await needsFirstRun(db)).toBe(false);
    const user = await db.user.findFirstOrThrow();
    expect((await listFactoriesPage(user.id, {}, db)).factories).toMatchObject([{ role: 'admin' }]);
  });

  it('stores an argon2id hash, never the password, and verifies it', async () => {
    const db = database.prisma;
    const user = await db.user.findFirstOrThrow();
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect(user.passwordHash).not.toContain('a long enough password');
    expect(await authenticateWithPassword({ email: user.email.toUpperCase(), password: 'a long enough password' }, db)).toMatchObject({ id: user.id });
    expect(await authenticateWithPassword({ email: user.email, password: 'wrong password' }, db)).toBeNull();
    expect(await authenticateWithPassword({ email: 'nobody@example.com', password: 'a long enough password' }, db)).toBeNull();
    expect(await authenticateWithPassword({ email: 42, password: undefined }, db)).toBeNull();
  });

  it('sessions are rows: they end when deleted or expired', async () => {
    const db = database.prisma;
    const user = await db.user.findFirstOrThrow();
    const session = await createSession(user.id, 'test', db);
    expect(await getSessionUser(session.id, db)).toMatchObject({ id: user.id });
    await deleteSession(session.id, db);
    expect(await getSessionUser(session.id, db)).toBeNull();
    const expired = await createSession(user.id, 'test', db);
    await db.session.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await getSessionUser(expired.id, db)).toBeNull();
  });

  it('API tokens are shown once, stored hashed, and stop working when revoked', async () => {
    const db = database.prisma;
    const user = await db.user.findFirstOrThrow();
    const { token, apiToken } = await createApiToken(user.id, { name: 'CI' }, db);
    expect(token).toMatch(/^trl_[A-Za-z0-9_-]{43}$/);
    const stored = await db.apiToken.findUniqueOrThrow({ where: { id: apiToken.id } });
    expect(JSON.stringify(stored)).not.toContain(token.slice(4));
    expect(await authenticateApiToken(token, db)).toMatchObject({ id: user.id });
    expect(await authenticateApiToken(`${token}x`, db)).toBeNull();
    expect(await authenticateApiToken('not-a-token', db)).toBeNull();
    expect((await listApiTokens(user.id, db)).map((t) => t.name)).toEqual(['CI']);
    await revokeApiToken(user.id, apiToken.id, db);
    expect(await authenticateApiToken(token, db)).toBeNull();
    await expect(revokeApiToken(user.id, apiToken.id, db)).rejects.toThrow(/does not exist/);
  });
});
