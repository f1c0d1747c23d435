import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeFactory } from '@/lib/domain/auth/guard';
import { createFactory } from '@/lib/domain/factories/service';
import { AppError } from '@/lib/platform/http/errors';
import { addMember, changeMemberRole, listMembers, removeMember } from '@/lib/domain/members/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { createUser, type PublicUser } from '@/lib/domain/users/service';

async function expectAppError(promise: Promise<unknown>, code: AppError['code']) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  return error as AppError;
}

describe.each(testDatabaseKinds())('roles and memberships on %s', (kind) => {
  let database: TestDatabase;
  let admin: PublicUser;
  let editor: PublicUser;
  let viewer: PublicUser;
  let outsider: PublicUser;
  let factoryId: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const db = database.prisma;
    admin = await createUser({ email: 'admin@example.com', password: 'correct horse battery' }, db);
    editor = await createUser({ email: 'Editor@Example.com', password: 'correct horse battery' }, db);
    viewer = await createUser({ email: 'viewer@example.com', password: 'correct horse battery' }, db);
    outsider = await createUser({ email: 'outsider@example.com', password: 'correct horse battery' }, db);
    factoryId = (await createFactory(admin.id, { name: 'Acme', slug: 'acme' }, db)).id;
    await createFactory(outsider.id, { name: 'Other', slug: 'other' }, db, 'everyone');
    await addMember(factoryId, { email: 'editor@example.com', role: 'editor' }, db);
    await addMember(factoryId, { email: 'viewer@example.com', role: 'viewer' }, db);
  });
  afterAll(() => database?.drop());

  it('stores emails lowercased and refuses a second account for the same email', async () => {
    expect(editor.email).toBe('editor@example.com');
    await expectAppError(createUser({ email: 'EDITOR@example.com', password: 'another password' }, database.prisma), 'conflict');
  });

  it('grants each role exactly its permissions', async () => {
    const db = database.prisma;
    const table = [
      [admin, 'factory:manage', true],
      [admin, 'automations:edit', true],
      [editor, 'factory:manage', false],
      [editor, 'automations:edit', true],
      [editor, 'factory:read', true],
      [viewer, 'automations:edit', false],
      [viewer, 'factory:manage', false],
      [viewer, 'factory:read', true],
    ] as const;
    for (const [user, permission, allowed] of table) {
      const attempt = authorizeFactory(user, 'acme', permission, db);
      if (allowed) await expect(attempt).resolves.toMatchObject({ factory: { slug: 'acme' } });
      else await expectAppError(attempt, 'forbidden');
    }
  });

  it("hides another factory's existence from non-members", async () => {
    await expectAppError(authorizeFactory(admin, 'other', 'factory:read', database.prisma), 'not_found');
    await expectAppError(authorizeFactory(outsider, 'acme', 'factory:read', database.prisma), 'not_found');
    const missing = await expectAppError(authorizeFactory(admin, 'does-not-exist', 'factory:read', database.prisma), 'not_found');
    expect(missing.message).toBe('Factory not found');
  });

  it('refuses to add unknown users or existing members, with a field message', async () => {
    const unknown = await expectAppError(addMember(factoryId, { email: 'nobody@example.com', role: 'viewer' }, database.prisma), 'not_found');
    expect(unknown.fields?.email).toMatch(/No Tripline account/);
    const twice = await expectAppError(addMember(factoryId, { email: 'viewer@example.com', role: 'admin' }, database.prisma), 'conflict');
    expect(twice.fields?.email).toMatch(/already a member/);
  });

  it('never leaves a factory without an admin', async () => {
    const db = database.prisma;
    await expectAppError(changeMemberRole(factoryId, { userId: admin.id, role: 'viewer' }, db), 'conflict');
    await expectAppError(removeMember(factoryId, { userId: admin.id }, db), 'conflict');
    await changeMemberRole(factoryId, { userId: editor.id, role: 'admin' }, db);
    await changeMemberRole(factoryId, { userId: admin.id, role: 'editor' }, db);
    const roles = Object.fromEntries((await listMembers(factoryId, db)).map((m) => [m.email, m.role]));
    expect(roles).toEqual({ 'admin@example.com': 'editor', 'editor@example.com': 'admin', 'viewer@example.com': 'viewer' });
    await changeMemberRole(factoryId, { userId: admin.id, role: 'admin' }, db);
  });

  it('two admins demoting each other at once keep one admin', async () => {
    const db = database.prisma;
    // admin and editor are both admins here (see previous test).
    const results = await Promise.allSettled([
      changeMemberRole(factoryId, { userId: admin.id, role: 'viewer' }, db),
      changeMemberRole(factoryId, { userId: editor.id, role: 'viewer' }, db),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await db.membership.count({ where: { factoryId, role: 'admin' } })).toBe(1);
  });

  it('removes a member, who then loses access at once', async () => {
    const db = database.prisma;
    await removeMember(factoryId, { userId: viewer.id }, db);
    await expectAppError(authorizeFactory(viewer, 'acme', 'factory:read', db), 'not_found');
  });
});
