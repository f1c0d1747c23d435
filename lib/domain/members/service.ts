import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { lockFactory } from '@/lib/platform/db/locks';
import type { Role } from '@/lib/domain/auth/roles';
import { AppError } from '@/lib/platform/http/errors';
import { addMemberSchema, changeRoleSchema, removeMemberSchema, type AddMemberInput } from '@/lib/domain/members/schemas';

export type Member = { userId: string; email: string; name: string | null; role: Role; since: Date };

export async function listMembers(factoryId: string, db: DbOrTx = prisma): Promise<Member[]> {
  const rows = await db.membership.findMany({
    where: { factoryId },
    select: { role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } },
    orderBy: [{ user: { email: 'asc' } }],
  });
  return rows.map((r) => ({ userId: r.user.id, email: r.user.email, name: r.user.name, role: r.role, since: r.createdAt }));
}

/** Adds an existing user (by email) to the factory with a role. */
export async function addMember(factoryId: string, input: AddMemberInput, db = prisma): Promise<Member> {
  const data = addMemberSchema.parse(input);
  const user = await db.user.findUnique({ where: { email: data.email }, select: { id: true, email: true, name: true } });
  if (!user) {
    throw new AppError('not_found', 'No Tripline account uses this email', {
      email: 'No Tripline account uses this email. Ask them to sign up first, then add them here.',
    });
  }
  const existing = await db.membership.findUnique({
    where: { factoryId_userId: { factoryId, userId: user.id } },
    select: { role: true },
  });
  if (existing) {
    throw new AppError('conflict', 'This person is already a member', { email: 'This person is already a member' });
  }
  const membership = await db.membership.create({
    data: { factoryId, userId: user.id, role: data.role },
    select: { role: true, createdAt: true },
  });
  return { userId: user.id, email: user.email, name: user.name, role: membership.role, since: membership.createdAt };
}

// Changes to admins run under the factory lock so two admins demoting each
// other at the same moment cannot leave the factory with none.
async function withAdminGuard(
  factoryId: string,
  userId: string,
  db: typeof prisma,
  change: (tx: Parameters<Parameters<typeof prisma.$transaction>[0]>[0]) => Promise<void>,
  nextRole: Role | null,
): Promise<void> {
  await db.$transaction(async (tx) => {
    await lockFactory(tx, factoryId);
    const membership = await tx.membership.findUnique({
      where: { factoryId_userId: { factoryId, userId } },
      select: { role: true },
    });
    if (!membership) throw new AppError('not_found', 'This person is not a member of the factory');
    if (membership.role === 'admin' && nextRole !== 'admin') {
      const admins = await tx.membership.count({ where: { factoryId, role: 'admin' } });
      if (admins <= 1) {
        throw new AppError('conflict', 'A factory needs at least one admin. Make someone else admin first.');
      }
    }
    await change(tx);
  });
}

export async function changeMemberRole(factoryId: string, input: { userId: string; role: Role }, db = prisma) {
  const data = changeRoleSchema.parse(input);
  await withAdminGuard(
    factoryId,
    data.userId,
    db,
    async (tx) => {
      await tx.membership.update({
        where: { factoryId_userId: { factoryId, userId: data.userId } },
        data: { role: data.role },
      });
    },
    data.role,
  );
}

export async function removeMember(factoryId: string, input: { userId: string }, db = prisma) {
  const data = removeMemberSchema.parse(input);
  await withAdminGuard(
    factoryId,
    data.userId,
    db,
    async (tx) => {
      await tx.membership.delete({ where: { factoryId_userId: { factoryId, userId: data.userId } } });
    },
    null,
  );
}
