import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiToken, createApiToken } from '@/lib/domain/api-tokens/service';
import { createSession, getSessionUser } from '@/lib/domain/auth/sessions';
import { createFactory } from '@/lib/domain/factories/service';
import { listAllFactories, listUsers, pageOfFactories, pageOfUsers, setInstanceAdmin, setUserDisabled } from '@/lib/domain/instance/service';
import { addMember } from '@/lib/domain/members/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { authenticateWithPassword, checkCredentials, completeFirstRun, createUser, type PublicUser } from '@/lib/domain/users/service';
import { appError } from '@/tests/support/app-error';

describe.each(testDatabaseKinds())('instance access on %s', (kind) => {
  let database: TestDatabase;
  let owner: PublicUser;
  let member: PublicUser;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    owner = (await completeFirstRun({ email: 'owner@example.com', password: 'a long enough password', factoryName: 'Acme', factorySlug: 'acme' }, database.prisma)).user;
    member = await createUser({ email: 'member@example.com', password: 'a long enough password' }, database.prisma);
  });
  afterAll(() => database?.drop());

  it('the first account is the instance admin; later accounts are not', () => {
    expect(owner.instanceAdmin).toBe(true);
    expect(member.instanceAdmin).toBe(false);
  });

  it('only instance admins create factories by default; "everyone" lets any account', async () => {
    const db = database.prisma;
    const refused = await appError(createFactory(member.id, { name: 'Mine', slug: 'mine' }, db));
    expect(refused.code).toBe('forbidden');
    expect(refused.message).toMatch(/Only instance admins can create factories/);
    await expect(createFactory(member.id, { name: 'Mine', slug: 'mine' }, db, 'everyone')).resolves.toMatchObject({ slug: 'mine' });
    await expect(createFactory(owner.id, { name: 'Second', slug: 'second' }, db)).resolves.toMatchObject({ slug: 'second' });
  });

  it('lists every account and every factory with its counts', async () => {
    const db = database.prisma;
    await addMember((await db.factory.findUniqueOrThrow({ where: { slug: 'acme' } })).id, { email: 'member@example.com', role: 'viewer' }, db);
    const users = await listUsers(db);
    expect(users.map((u) => [u.email, u.instanceAdmin, u.factories])).toEqual([
      ['member@example.com', false, 2],
      ['owner@example.com', true, 2],
    ]);
    const factories = await listAllFactories(db);
    expect(factories.map((f) => [f.slug, f.members, f.webhooks])).toEqual([
      ['acme', 2, 0],
      ['mine', 1, 0],
      ['second', 1, 0],
    ]);
  });

  it('pages both lists for the Instance page, with the counts of the rows shown; a page past the last is the last', async () => {
    const db = database.prisma;
    const first = await pageOfFactories(1, db, 2);
    expect(first).toMatchObject({ total: 3, page: 1, pages: 2, perPage: 2 });
    expect(first.rows.map((f) => [f.slug, f.members])).toEqual([
      ['acme', 2],
      ['mine', 1],
    ]);
    const last = await pageOfFactories(2, db, 2);
    expect(last.rows.map((f) => f.slug)).toEqual(['second']);
    expect(await pageOfFactories(9, db, 2)).toEqual(last);
    expect((await pageOfFactories(Number.NaN, db, 2)).page).toBe(1);
    const users = await pageOfUsers(2, db, 1);
    expect(users).toMatchObject({ total: 2, page: 2, pages: 2 });
    expect(users.rows.map((u) => [u.email, u.factories])).toEqual([['owner@example.com', 2]]);
  });

  it('a disabled account cannot sign in, loses its sessions, and its API tokens stop working until enabled', async () => {
    const db = database.prisma;
    const session = await createSession(member.id, 'test', db);
    const { token } = await createApiToken(member.id, { name: 'CI' }, db);
    await setUserDisabled(owner.id, { userId: member.id, disabled: true }, db);
    expect(await db.session.count({ where: { userId: member.id } })).toBe(0);
    expect(await getSessionUser(session.id, db)).toBeNull();
    expect(await authenticateApiToken(token, db)).toBeNull();
    expect(await checkCredentials({ email: 'member@example.com', password: 'a long enough password' }, db)).toEqual({ outcome: 'disabled' });
    // The wrong password says "wrong", never "disabled".
    expect(await checkCredentials({ email: 'member@example.com', password: 'not the password' }, db)).toEqual({ outcome: 'wrong' });
    expect((await appError(createFactory(member.id, { name: 'Nope', slug: 'nope' }, db, 'everyone'))).code).toBe('forbidden');

    await setUserDisabled(owner.id, { userId: member.id, disabled: false }, db);
    expect(await authenticateWithPassword({ email: 'member@example.com', password: 'a long enough password' }, db)).toMatchObject({ id: member.id });
    expect(await authenticateApiToken(token, db)).toMatchObject({ id: member.id });
  });

  it('never leaves the instance without an enabled instance admin; nobody disables themselves', async () => {
    const db = database.prisma;
    expect((await appError(setUserDisabled(owner.id, { userId: owner.id, disabled: true }, db))).message).toMatch(/your own account/);
    expect((await appError(setUserDisabled(null, { userId: owner.id, disabled: true }, db))).message).toMatch(/at least one enabled instance admin/);
    expect((await appError(setInstanceAdmin({ userId: owner.id, instanceAdmin: false }, db))).message).toMatch(/at least one enabled instance admin/);

    await setInstanceAdmin({ userId: member.id, instanceAdmin: true }, db);
    await setUserDisabled(owner.id, { userId: member.id, disabled: true }, db);
    // A disabled admin does not count.
    expect((await appError(setInstanceAdmin({ userId: owner.id, instanceAdmin: false }, db))).code).toBe('conflict');
    await setUserDisabled(owner.id, { userId: member.id, disabled: false }, db);
    await setInstanceAdmin({ userId: owner.id, instanceAdmin: false }, db);
    expect((await listUsers(db)).filter((u) => u.instanceAdmin).map((u) => u.email)).toEqual(['member@example.com']);
    await setInstanceAdmin({ userId: owner.id, instanceAdmin: true }, db);
  });

  it('two admins revoking each other at once keep one', async () => {
    const db = database.prisma;
    // owner and member are both instance admins here.
    const results = await Promise.allSettled([
      setInstanceAdmin({ userId: owner.id, instanceAdmin: false }, db),
      setInstanceAdmin({ userId: member.id, instanceAdmin: false }, db),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await db.user.count({ where: { instanceAdmin: true, disabledAt: null } })).toBe(1);
  });
});
