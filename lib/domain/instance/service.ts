import 'server-only';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { advisoryXactLock, lockKeys } from '@/lib/platform/db/locks';
import { numberedPage, PAGE_SIZE, type NumberedPage } from '@/lib/platform/paging';
import { deleteUserSessions } from '@/lib/domain/auth/sessions';
import { AppError } from '@/lib/platform/http/errors';
import { setDisabledSchema, setInstanceAdminSchema } from '@/lib/domain/instance/schemas';

// The instance: every account and factory, for instance admins (the Instance
// page and `tripline user` / `tripline factory list`). The one rule kept here:
// the instance always has an enabled instance admin, checked under one
// advisory lock so two admins demoting or disabling each other at once
// cannot both succeed.

export type InstanceUser = {
  id: string;
  email: string;
  name: string | null;
  instanceAdmin: boolean;
  disabledAt: Date | null;
  createdAt: Date;
  factories: number;
};

const userSelect = {
  id: true,
  email: true,
  name: true,
  instanceAdmin: true,
  disabledAt: true,
  createdAt: true,
  _count: { select: { memberships: true } },
} as const;

const factorySelect = {
  id: true,
  slug: true,
  name: true,
  createdAt: true,
  _count: { select: { memberships: true, webhooks: { where: { deletedAt: null } } } },
} as const;

const toUser = ({ _count, ...user }: { _count: { memberships: number } } & Omit<InstanceUser, 'factories'>): InstanceUser => ({ ...user, factories: _count.memberships });
const toFactory = ({ _count, ...factory }: { _count: { memberships: number; webhooks: number } } & Omit<InstanceFactory, 'members' | 'webhooks'>): InstanceFactory => ({
  ...factory,
  members: _count.memberships,
  webhooks: _count.webhooks,
});

/** Every account with its factory count (the CLI's `tripline user list`). */
export async function listUsers(db: DbOrTx = prisma): Promise<InstanceUser[]> {
  return (await db.user.findMany({ select: userSelect, orderBy: { email: 'asc' } })).map(toUser);
}

export type InstanceFactory = { id: string; slug: string; name: string; createdAt: Date; members: number; webhooks: number };

const factoryOrder = [{ name: 'asc' }, { id: 'asc' }] as const;

/** Every factory with its member and live-webhook counts (the CLI's `tripline factory list`). */
export async function listAllFactories(db: DbOrTx = prisma): Promise<InstanceFactory[]> {
  return (await db.factory.findMany({ select: factorySelect, orderBy: [...factoryOrder] })).map(toFactory);
}

/**
 * The Instance page shows PAGE_SIZE (100) rows of each list. An instance of
 * many teams has a thousand factories; the page drew them all (343 ms at 1,000,
 * docs/benchmarks.md, Many teams). Counts are read for the page's rows only.
 */
export type InstancePage<T> = NumberedPage<T>;

/** One page of the accounts, by email. */
export async function pageOfUsers(page: number, db: DbOrTx = prisma, perPage = PAGE_SIZE): Promise<InstancePage<InstanceUser>> {
  return numberedPage(page, await db.user.count(), perPage, async (skip, take) =>
    (await db.user.findMany({ select: userSelect, orderBy: { email: 'asc' }, skip, take })).map(toUser),
  );
}

/** One page of the factories, by name, with their counts. */
export async function pageOfFactories(page: number, db: DbOrTx = prisma, perPage = PAGE_SIZE): Promise<InstancePage<InstanceFactory>> {
  return numberedPage(page, await db.factory.count(), perPage, async (skip, take) =>
    (await db.factory.findMany({ select: factorySelect, orderBy: [...factoryOrder], skip, take })).map(toFactory),
  );
}

export async function getUserIdByEmail(email: string, db: DbOrTx = prisma): Promise<string> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() }, select: { id: true } });
  if (!user) throw new AppError('not_found', `No account uses ${email.trim().toLowerCase()}`);
  return user.id;
}

const lastAdmin = () =>
  new AppError('conflict', 'The instance needs at least one enabled instance admin. Make someone else instance admin first.');

/**
 * Disables or enables an account. Disabling deletes its sessions (signed out
 * everywhere at once); its API tokens are refused while it stays disabled.
 * `actorId` is the instance admin doing it (null from the CLI), who cannot
 * disable their own account.
 */
export async function setUserDisabled(actorId: string | null, input: { userId: string; disabled: boolean }, db: Db = prisma): Promise<void> {
  const data = setDisabledSchema.parse(input);
  if (data.disabled && actorId === data.userId) throw new AppError('conflict', 'You cannot disable your own account.');
  await db.$transaction(async (tx) => {
    await advisoryXactLock(tx, lockKeys.instanceAdmins);
    const user = await tx.user.findUnique({ where: { id: data.userId }, select: { instanceAdmin: true, disabledAt: true } });
    if (!user) throw new AppError('not_found', 'This account does not exist');
    if (data.disabled === Boolean(user.disabledAt)) return;
    if (data.disabled && user.instanceAdmin) {
      const others = await tx.user.count({ where: { instanceAdmin: true, disabledAt: null, id: { not: data.userId } } });
      if (others === 0) throw lastAdmin();
    }
    await tx.user.update({ where: { id: data.userId }, data: { disabledAt: data.disabled ? new Date() : null } });
    if (data.disabled) await deleteUserSessions(data.userId, tx);
  });
}

/** Grants or revokes instance admin. The last enabled instance admin keeps it. */
export async function setInstanceAdmin(input: { userId: string; instanceAdmin: boolean }, db: Db = prisma): Promise<void> {
  const data = setInstanceAdminSchema.parse(input);
  await db.$transaction(async (tx) => {
    await advisoryXactLock(tx, lockKeys.instanceAdmins);
    const user = await tx.user.findUnique({ where: { id: data.userId }, select: { instanceAdmin: true, disabledAt: true } });
    if (!user) throw new AppError('not_found', 'This account does not exist');
    if (user.instanceAdmin === data.instanceAdmin) return;
    if (!data.instanceAdmin && !user.disabledAt) {
      const others = await tx.user.count({ where: { instanceAdmin: true, disabledAt: null, id: { not: data.userId } } });
      if (others === 0) throw lastAdmin();
    }
    await tx.user.update({ where: { id: data.userId }, data: { instanceAdmin: data.instanceAdmin } });
  });
}
