import 'server-only';
import { prisma, type DbOrTx, type Tx } from '@/lib/platform/db';
import type { Role } from '@/lib/domain/auth/roles';
import { env, type Env } from '@/lib/platform/env';
import { createFactorySchema, type CreateFactoryInput } from '@/lib/domain/factories/schemas';
import { AppError } from '@/lib/platform/http/errors';

export type FactorySummary = { id: string; slug: string; name: string; role: Role };

const slugTaken = () =>
  new AppError('conflict', 'This slug is already used by another factory', {
    slug: 'This slug is already used by another factory',
  });

/** Creates a factory whose admin is the given user (inside the caller's transaction). */
export async function createFactoryTx(tx: Tx, userId: string, input: CreateFactoryInput) {
  const data = createFactorySchema.parse(input);
  if (await tx.factory.findUnique({ where: { slug: data.slug }, select: { id: true } })) throw slugTaken();
  return tx.factory.create({
    data: { slug: data.slug, name: data.name, memberships: { create: { userId, role: 'admin' } } },
    select: { id: true, slug: true, name: true },
  });
}

export type FactoryCreationPolicy = Env['factoryCreation'];

/** Whether an account may create factories under TRIPLINE_FACTORY_CREATION. */
export function mayCreateFactories(user: { instanceAdmin: boolean }, policy: FactoryCreationPolicy = env().factoryCreation): boolean {
  return policy === 'everyone' || user.instanceAdmin;
}

export const factoryCreationRefused = () =>
  new AppError('forbidden', 'Only instance admins can create factories on this Tripline. Ask an instance admin to create one and invite you.');

/** Creates a factory with the user as its admin, when TRIPLINE_FACTORY_CREATION lets the user create one. */
export async function createFactory(userId: string, input: CreateFactoryInput, db = prisma, policy: FactoryCreationPolicy = env().factoryCreation) {
  const data = createFactorySchema.parse(input);
  try {
    return await db.$transaction(async (tx) => {
      const user = await tx.user.findUnique({ where: { id: userId }, select: { instanceAdmin: true, disabledAt: true } });
      if (!user || user.disabledAt || !mayCreateFactories(user, policy)) throw factoryCreationRefused();
      return createFactoryTx(tx, userId, data);
    });
  } catch (error) {
    // Two creations of the same slug at once: the unique index decides.
    if ((error as { code?: string }).code === 'P2002') throw slugTaken();
    throw error;
  }
}

/** The factories a user belongs to, with their role, by name. */
export async function listFactoriesForUser(userId: string, db: DbOrTx = prisma): Promise<FactorySummary[]> {
  const memberships = await db.membership.findMany({
    where: { userId },
    select: { role: true, factory: { select: { id: true, slug: true, name: true } } },
    orderBy: { factory: { name: 'asc' } },
  });
  return memberships.map((m) => ({ ...m.factory, role: m.role }));
}
