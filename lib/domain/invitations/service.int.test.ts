import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeFactory } from '@/lib/domain/auth/guard';
import { createFactory } from '@/lib/domain/factories/service';
import {
  MAX_PENDING_INVITATIONS,
  acceptInvitation,
  acceptInvitationWithNewAccount,
  createInvitation,
  hashInvitationToken,
  inspectInvitation,
  listPendingInvitations,
  revokeInvitation,
} from '@/lib/domain/invitations/service';
import { listMembers } from '@/lib/domain/members/service';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { authenticateWithPassword, createUser, type PublicUser } from '@/lib/domain/users/service';
import { appError } from '@/tests/support/app-error';

describe.each(testDatabaseKinds())('invitations on %s', (kind) => {
  let database: TestDatabase;
  let owner: PublicUser;
  let factoryId: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    owner = await createUser({ email: 'owner@example.com', password: 'a long enough password' }, database.prisma);
    factoryId = (await createFactory(owner.id, { name: 'Acme', slug: 'acme' }, database.prisma)).id;
  });
  afterAll(() => database?.drop());

  it('stores only a hash of a 256-bit token and lists the invitation as pending', async () => {
    const db = database.prisma;
    const { token, url, invitation } = await createInvitation(factoryId, owner.id, { email: 'New@Example.com', role: 'editor' }, db);
    expect(token).toMatch(/^inv_[A-Za-z0-9_-]{43}$/);
    expect(url).toMatch(new RegExp(`/invite/${token}$`));
    expect(invitation).toMatchObject({ email: 'new@example.com', role: 'editor', invitedBy: 'owner@example.com' });
    const row = await db.invitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(row.tokenHash).toBe(hashInvitationToken(token));
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBeCloseTo(7 * 24 * 3600 * 1000, -4);
    expect((await listPendingInvitations(factoryId, db)).map((i) => i.email)).toEqual(['new@example.com']);
    expect(await inspectInvitation(token, db)).toMatchObject({ state: 'pending', email: 'new@example.com', role: 'editor', factory: { slug: 'acme' } });
    expect(await inspectInvitation('inv_' + 'A'.repeat(43), db)).toEqual({ state: 'invalid' });
    expect(await inspectInvitation('nonsense', db)).toEqual({ state: 'invalid' });
  });

  it('creates an account with the invited email, even with sign-up closed, and it works once', async () => {
    const db = database.prisma;
    const { token } = await createInvitation(factoryId, owner.id, { email: 'dana@example.com', role: 'viewer' }, db);
    const accepted = await acceptInvitationWithNewAccount({ token, name: 'Dana', password: 'dana password 1' }, db);
    expect(accepted).toMatchObject({ email: 'dana@example.com', role: 'viewer', factory: { slug: 'acme' } });
    const dana = await authenticateWithPassword({ email: 'dana@example.com', password: 'dana password 1' }, db);
    expect(dana).toMatchObject({ email: 'dana@example.com', instanceAdmin: false });
    await expect(authorizeFactory(dana!, 'acme', 'factory:read', db)).resolves.toMatchObject({ role: 'viewer' });

    const reused = await appError(acceptInvitationWithNewAccount({ token, password: 'another password 1' }, db));
    expect(reused.message).toMatch(/already been used/);
    const reusedBySignedIn = await appError(acceptInvitation({ token }, owner, db));
    expect(reusedBySignedIn.message).toMatch(/already been used/);
  });

  it('a signed-in account accepts an invitation sent to another email; a member cannot accept twice', async () => {
    const db = database.prisma;
    const erin = await createUser({ email: 'erin@example.com', password: 'a long enough password' }, db);
    const { token } = await createInvitation(factoryId, owner.id, { email: 'erin.work@example.com', role: 'admin' }, db);
    await expect(acceptInvitation({ token }, erin, db)).resolves.toMatchObject({ email: 'erin@example.com', role: 'admin' });
    const row = await db.invitation.findUniqueOrThrow({ where: { tokenHash: hashInvitationToken(token) } });
    expect(row.acceptedById).toBe(erin.id);

    // Already a member: refused, and the link stays usable for its person.
    const second = await createInvitation(factoryId, owner.id, { email: 'someone@example.com', role: 'viewer' }, db);
    expect((await appError(acceptInvitation({ token: second.token }, erin, db))).message).toMatch(/already a member of Acme/);
    expect((await inspectInvitation(second.token, db)).state).toBe('pending');
  });

  it('a new account for an email that has one is told to sign in, and nothing changes', async () => {
    const db = database.prisma;
    const { token } = await createInvitation(factoryId, owner.id, { email: 'Owner2@example.com', role: 'viewer' }, db);
    await createUser({ email: 'owner2@example.com', password: 'a long enough password' }, db);
    expect((await appError(acceptInvitationWithNewAccount({ token, password: 'whatever password' }, db))).message).toMatch(/Sign in with it/);
    expect((await inspectInvitation(token, db)).state).toBe('pending');
  });

  it('refuses to invite a member; inviting the same email again replaces the pending link', async () => {
    const db = database.prisma;
    const member = await appError(createInvitation(factoryId, owner.id, { email: 'dana@example.com', role: 'admin' }, db));
    expect(member.fields?.email).toBe('This person is already a member');
    const first = await createInvitation(factoryId, owner.id, { email: 'twice@example.com', role: 'viewer' }, db);
    const second = await createInvitation(factoryId, owner.id, { email: 'twice@example.com', role: 'editor' }, db);
    expect((await inspectInvitation(first.token, db)).state).toBe('revoked');
    expect(await inspectInvitation(second.token, db)).toMatchObject({ state: 'pending', role: 'editor' });
    expect((await listPendingInvitations(factoryId, db)).filter((i) => i.email === 'twice@example.com')).toHaveLength(1);
  });

  it('revoked and expired links are refused with their reason', async () => {
    const db = database.prisma;
    const revoked = await createInvitation(factoryId, owner.id, { email: 'revoked@example.com', role: 'viewer' }, db);
    await revokeInvitation(factoryId, revoked.invitation.id, db);
    expect((await appError(revokeInvitation(factoryId, revoked.invitation.id, db))).code).toBe('not_found');
    expect((await appError(acceptInvitationWithNewAccount({ token: revoked.token, password: 'a long enough password' }, db))).message).toMatch(/was revoked/);

    const expired = await createInvitation(factoryId, owner.id, { email: 'late@example.com', role: 'viewer' }, db);
    await db.invitation.update({ where: { id: expired.invitation.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await appError(acceptInvitationWithNewAccount({ token: expired.token, password: 'a long enough password' }, db))).message).toMatch(/expired on/);
    expect(await db.user.count({ where: { email: { in: ['revoked@example.com', 'late@example.com'] } } })).toBe(0);
    expect((await listPendingInvitations(factoryId, db)).map((i) => i.email)).not.toContain('late@example.com');
  });

  it('another factory cannot revoke an invitation', async () => {
    const db = database.prisma;
    const other = (await createFactory(owner.id, { name: 'Other', slug: 'other' }, db)).id;
    const { invitation } = await createInvitation(factoryId, owner.id, { email: 'cross@example.com', role: 'viewer' }, db);
    expect((await appError(revokeInvitation(other, invitation.id, db))).code).toBe('not_found');
  });

  it('concurrent accepts of one link: exactly one account joins', async () => {
    const db = database.prisma;
    const { token } = await createInvitation(factoryId, owner.id, { email: 'race@example.com', role: 'editor' }, db);
    const racers = await Promise.all(
      ['r1', 'r2', 'r3'].map((n) => createUser({ email: `${n}@example.com`, password: 'a long enough password' }, db)),
    );
    const results = await Promise.allSettled([
      acceptInvitationWithNewAccount({ token, password: 'race password 1' }, db),
      ...racers.map((user) => acceptInvitation({ token }, user, db)),
      acceptInvitationWithNewAccount({ token, password: 'race password 2' }, db),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as Error).message).toMatch(/already been used/);
    const joined = (await listMembers(factoryId, db)).filter((m) => ['race@example.com', 'r1@example.com', 'r2@example.com', 'r3@example.com'].includes(m.email));
    expect(joined).toHaveLength(1);
  });

  it('refuses an invitation once its inviter is no longer an enabled admin of the factory', async () => {
    const db = database.prisma;
    const inviter = await createUser({ email: 'temp-admin@example.com', password: 'a long enough password' }, db);
    await db.membership.create({ data: { factoryId, userId: inviter.id, role: 'admin' } });
    const demoted = await createInvitation(factoryId, inviter.id, { email: 'gil@example.com', role: 'editor' }, db);
    const disabledLink = await createInvitation(factoryId, inviter.id, { email: 'hal@example.com', role: 'viewer' }, db);
    expect(await inspectInvitation(demoted.token, db)).toMatchObject({ state: 'pending' });

    await db.membership.update({ where: { factoryId_userId: { factoryId, userId: inviter.id } }, data: { role: 'editor' } });
    expect(await inspectInvitation(demoted.token, db)).toEqual({ state: 'withdrawn', factoryName: 'Acme' });
    expect((await listPendingInvitations(factoryId, db)).map((i) => i.email)).not.toContain('gil@example.com');
    const refusal = await appError(acceptInvitationWithNewAccount({ token: demoted.token, name: 'Gil', password: 'gil password 12' }, db));
    expect(refusal.message).toMatch(/no longer valid: the admin who sent it is no longer an admin of Acme/);
    expect(await db.user.findUnique({ where: { email: 'gil@example.com' } })).toBeNull();

    // Admin again, the link works again; a disabled inviter withdraws it as well.
    await db.membership.update({ where: { factoryId_userId: { factoryId, userId: inviter.id } }, data: { role: 'admin' } });
    expect(await inspectInvitation(disabledLink.token, db)).toMatchObject({ state: 'pending' });
    await db.user.update({ where: { id: inviter.id }, data: { disabledAt: new Date() } });
    expect(await inspectInvitation(disabledLink.token, db)).toEqual({ state: 'withdrawn', factoryName: 'Acme' });
    await db.user.update({ where: { id: inviter.id }, data: { disabledAt: null } });
    await db.membership.delete({ where: { factoryId_userId: { factoryId, userId: inviter.id } } });
    const other = await createUser({ email: 'other-account@example.com', password: 'a long enough password' }, db);
    const claimed = await appError(acceptInvitation({ token: disabledLink.token }, other, db));
    expect(claimed.message).toMatch(/no longer valid/);
  });

  it(`keeps at most ${MAX_PENDING_INVITATIONS} invitations pending in a factory; inviting one of them again still replaces it`, async () => {
    const db = database.prisma;
    const bounded = (await createFactory(owner.id, { name: 'Bounded', slug: 'bounded-invitations' }, db)).id;
    for (let i = 0; i < MAX_PENDING_INVITATIONS; i++) await createInvitation(bounded, owner.id, { email: `p${i}@example.com`, role: 'viewer' }, db);
    const refused = await appError(createInvitation(bounded, owner.id, { email: 'one-more@example.com', role: 'viewer' }, db));
    expect(refused).toMatchObject({ code: 'conflict', message: expect.stringMatching(/at most 100 pending invitations/) });
    await createInvitation(bounded, owner.id, { email: 'p7@example.com', role: 'editor' }, db);
    expect(await listPendingInvitations(bounded, db)).toHaveLength(MAX_PENDING_INVITATIONS);
  });
});
