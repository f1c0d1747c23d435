import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import { prisma, type Db, type DbOrTx, type Tx } from '@/lib/platform/db';
import type { Prisma } from '@/lib/generated/prisma/client';
import { lockFactory } from '@/lib/platform/db/locks';
import type { Role } from '@/lib/domain/auth/roles';
import { hashPassword } from '@/lib/platform/crypto/password';
import { env } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import {
  acceptInvitationSchema,
  acceptWithNewAccountSchema,
  createInvitationSchema,
  invitationTokenSchema,
  type AcceptWithNewAccountInput,
  type CreateInvitationInput,
} from '@/lib/domain/invitations/schemas';
import { createUserTx, type PublicUser } from '@/lib/domain/users/service';

// Invitations let a factory admin bring a person in with a role, whether or
// not they have an account yet, and whether or not sign-up is open.
//
// The link carries a token of 256 random bits; only its SHA-256 is stored
// (like API tokens), so the database never holds a usable link. Looking the
// hash up by equality is safe against timing attacks: the attacker does not
// control the hash being compared. A link works once: accepting claims the
// row with one conditional UPDATE inside the transaction that adds the
// membership, so two people racing with the same link get one membership.
//
// Binding: a new account created from an invitation always gets the invited
// email (the person cannot type another). A signed-in account may accept an
// invitation sent to another email, after the page says plainly which account
// joins: the link is the admin's grant, and the invited person may use
// another address for Tripline.

const TOKEN_PREFIX = 'inv_';

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The link a person opens to accept. */
export function invitationUrl(token: string): string {
  return `${env().baseUrl}/invite/${token}`;
}

export type PendingInvitation = {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  invitedBy: string | null;
};

const pendingWhere = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });

/**
 * An invitation is only as good as its inviter: it is refused once the admin
 * who sent it is no longer an enabled admin of the invitation's factory
 * (demoted, removed, or disabled). Checked where a link is read and claimed,
 * not by revoking on each change of role, so no future way of changing a
 * membership can forget it. `factory` selects the invitation's factory.
 */
const inviterStillAdmin = (factory: Prisma.FactoryWhereInput) => ({
  OR: [{ invitedById: null }, { invitedBy: { disabledAt: null, memberships: { some: { role: 'admin' as const, factory } } } }],
});

/** Invitations a factory may have pending at once: the Members page lists them all. */
export const MAX_PENDING_INVITATIONS = 100;

/**
 * Invites an email into a factory with a role. Returns the token: the only
 * time it exists in clear. A new invitation for the same email replaces a
 * pending one (the old link stops working), so "send again" is just inviting.
 */
export async function createInvitation(
  factoryId: string,
  invitedById: string | null,
  input: CreateInvitationInput,
  db: Db = prisma,
  ttlDays: number = env().invitationTtlDays,
): Promise<{ token: string; url: string; invitation: PendingInvitation }> {
  const data = createInvitationSchema.parse(input);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const now = new Date();
  const invitation = await db.$transaction(async (tx) => {
    await lockFactory(tx, factoryId);
    const member = await tx.membership.findFirst({ where: { factoryId, user: { email: data.email } }, select: { role: true } });
    if (member) throw new AppError('conflict', 'This person is already a member', { email: 'This person is already a member' });
    await tx.invitation.updateMany({ where: { factoryId, email: data.email, ...pendingWhere(now) }, data: { revokedAt: now } });
    if ((await tx.invitation.count({ where: { factoryId, ...pendingWhere(now) } })) >= MAX_PENDING_INVITATIONS) {
      throw new AppError('conflict', `A factory can have at most ${MAX_PENDING_INVITATIONS} pending invitations. Revoke one, or wait for invitations to be accepted or expire.`);
    }
    return tx.invitation.create({
      data: {
        factoryId,
        email: data.email,
        role: data.role,
        tokenHash: hashInvitationToken(token),
        invitedById,
        expiresAt: new Date(now.getTime() + ttlDays * 24 * 60 * 60 * 1000),
      },
      select: { id: true, email: true, role: true, createdAt: true, expiresAt: true, invitedBy: { select: { email: true } } },
    });
  });
  const { invitedBy, ...rest } = invitation;
  return { token, url: invitationUrl(token), invitation: { ...rest, invitedBy: invitedBy?.email ?? null } };
}

/** Invitations of a factory that can still be accepted, newest first. */
export async function listPendingInvitations(factoryId: string, db: DbOrTx = prisma): Promise<PendingInvitation[]> {
  const rows = await db.invitation.findMany({
    where: { factoryId, ...pendingWhere(new Date()), ...inviterStillAdmin({ id: factoryId }) },
    select: { id: true, email: true, role: true, createdAt: true, expiresAt: true, invitedBy: { select: { email: true } } },
    orderBy: { createdAt: 'desc' },
  });
  return rows.map(({ invitedBy, ...rest }) => ({ ...rest, invitedBy: invitedBy?.email ?? null }));
}

/** Revokes a pending invitation of the factory; its link stops working at once. */
export async function revokeInvitation(factoryId: string, invitationId: string, db: DbOrTx = prisma): Promise<void> {
  const { count } = await db.invitation.updateMany({
    where: { id: invitationId, factoryId, ...pendingWhere(new Date()) },
    data: { revokedAt: new Date() },
  });
  if (count === 0) throw new AppError('not_found', 'This invitation was already accepted, revoked or has expired');
}

export type InvitationState =
  | { state: 'invalid' }
  | { state: 'expired' | 'revoked' | 'accepted'; factoryName: string; at: Date }
  | { state: 'withdrawn'; factoryName: string }
  | { state: 'pending'; email: string; role: Role; factory: { slug: string; name: string }; expiresAt: Date; invitedBy: string | null };

/** What a link is, for the invitation page. */
export async function inspectInvitation(token: string, db: DbOrTx = prisma): Promise<InvitationState> {
  if (!invitationTokenSchema.safeParse(token).success) return { state: 'invalid' };
  const row = await db.invitation.findUnique({
    where: { tokenHash: hashInvitationToken(token) },
    select: {
      email: true,
      role: true,
      expiresAt: true,
      acceptedAt: true,
      revokedAt: true,
      factory: { select: { slug: true, name: true } },
      invitedBy: { select: { email: true, name: true } },
    },
  });
  if (!row) return { state: 'invalid' };
  if (row.acceptedAt) return { state: 'accepted', factoryName: row.factory.name, at: row.acceptedAt };
  if (row.revokedAt) return { state: 'revoked', factoryName: row.factory.name, at: row.revokedAt };
  if (row.expiresAt <= new Date()) return { state: 'expired', factoryName: row.factory.name, at: row.expiresAt };
  const tokenHash = hashInvitationToken(token);
  if ((await db.invitation.count({ where: { tokenHash, ...inviterStillAdmin({ invitations: { some: { tokenHash } } }) } })) === 0) {
    return { state: 'withdrawn', factoryName: row.factory.name };
  }
  return {
    state: 'pending',
    email: row.email,
    role: row.role,
    factory: row.factory,
    expiresAt: row.expiresAt,
    invitedBy: row.invitedBy ? row.invitedBy.name || row.invitedBy.email : null,
  };
}

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' });

/** The error for a link that cannot be accepted, worded for the person holding it. */
export function invitationRefusal(state: Exclude<InvitationState, { state: 'pending' }>): AppError {
  switch (state.state) {
    case 'invalid':
      return new AppError('not_found', 'This invitation link is not valid. Check that you copied all of it, or ask for a new one.');
    case 'expired':
      return new AppError('conflict', `This invitation to ${state.factoryName} expired on ${dateFormat.format(state.at)}. Ask an admin of ${state.factoryName} for a new one.`);
    case 'revoked':
      return new AppError('conflict', `This invitation to ${state.factoryName} was revoked. Ask an admin of ${state.factoryName} for a new one if you still need access.`);
    case 'withdrawn':
      return new AppError('conflict', `This invitation to ${state.factoryName} is no longer valid: the admin who sent it is no longer an admin of ${state.factoryName}. Ask a current admin for a new one.`);
    case 'accepted':
      return new AppError('conflict', `This invitation to ${state.factoryName} has already been used: each link works once. Sign in if it was you, or ask an admin of ${state.factoryName} for a new one.`);
  }
}

type Claimed = { id: string; factoryId: string; email: string; role: Role; factory: { slug: string; name: string } };

/**
 * Claims a pending invitation inside the caller's transaction: one
 * conditional UPDATE, so under concurrent accepts exactly one claims it (the
 * others wait for the row lock, then find it no longer pending). Throws the
 * refusal for a link that is not pending.
 */
async function claim(tx: Tx, token: string, userId: string | null): Promise<Claimed> {
  const tokenHash = hashInvitationToken(token);
  const now = new Date();
  const { count } = await tx.invitation.updateMany({
    where: { tokenHash, ...pendingWhere(now), ...inviterStillAdmin({ invitations: { some: { tokenHash } } }) },
    data: { acceptedAt: now, acceptedById: userId },
  });
  if (count === 0) {
    const state = await inspectInvitation(token, tx);
    throw invitationRefusal(state.state === 'pending' ? { state: 'invalid' } : state);
  }
  return tx.invitation.findUniqueOrThrow({
    where: { tokenHash },
    select: { id: true, factoryId: true, email: true, role: true, factory: { select: { slug: true, name: true } } },
  });
}

export type Accepted = { factory: { slug: string; name: string }; role: Role; email: string };

/** A signed-in account accepts: it joins the factory with the invited role. */
export async function acceptInvitation(input: { token: string }, user: PublicUser, db: Db = prisma): Promise<Accepted> {
  const { token } = acceptInvitationSchema.parse(input);
  return db.$transaction(async (tx) => {
    const invitation = await claim(tx, token, user.id);
    const existing = await tx.membership.findUnique({
      where: { factoryId_userId: { factoryId: invitation.factoryId, userId: user.id } },
      select: { role: true },
    });
    // Rolls the claim back: the link stays usable for the person it was meant for.
    if (existing) throw new AppError('conflict', `${user.email} is already a member of ${invitation.factory.name}.`);
    await tx.membership.create({ data: { factoryId: invitation.factoryId, userId: user.id, role: invitation.role } });
    return { factory: invitation.factory, role: invitation.role, email: user.email };
  });
}

/**
 * A new account from an invitation, with the invited email, and its
 * membership: one transaction, so the account exists only if the link was
 * claimed. Works when sign-up is closed: the invitation is the permission.
 */
export async function acceptInvitationWithNewAccount(input: AcceptWithNewAccountInput, db: Db = prisma): Promise<Accepted> {
  const data = acceptWithNewAccountSchema.parse(input);
  // A link that cannot be accepted is refused before the password is hashed
  // (argon2id, 19 MiB); claim() checks again inside the transaction.
  const state = await inspectInvitation(data.token, db);
  if (state.state !== 'pending') throw invitationRefusal(state);
  const passwordHash = await hashPassword(data.password);
  return db.$transaction(async (tx) => {
    const invitation = await claim(tx, data.token, null);
    // Saying that the invited email has an account reveals it only to the
    // holder of the link, which was made for that email.
    const taken = await tx.user.findUnique({ where: { email: invitation.email }, select: { id: true } });
    if (taken) throw new AppError('conflict', `An account already uses ${invitation.email}. Sign in with it to accept this invitation.`);
    const user = await createUserTx(tx, { email: invitation.email, name: data.name, passwordHash });
    await tx.invitation.update({ where: { id: invitation.id }, data: { acceptedById: user.id } });
    await tx.membership.create({ data: { factoryId: invitation.factoryId, userId: user.id, role: invitation.role } });
    return { factory: invitation.factory, role: invitation.role, email: user.email };
  });
}
