import 'server-only';
import { prisma, type DbOrTx, type Tx } from '@/lib/platform/db';
import type { Role } from '@/lib/domain/auth/roles';
import { env, type Env } from '@/lib/platform/env';
import { createFactorySchema, listFactoriesSchema, type CreateFactoryInput, type ListFactoriesInput } from '@/lib/domain/factories/schemas';
import { AppError } from '@/lib/platform/http/errors';
import { numberedPage, PAGE_SIZE, type NumberedPage } from '@/lib/platform/paging';
import { decodeNameCursor, encodeNameCursor } from '@/lib/platform/name-cursor';

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

// A user's memberships as factory summaries, by the factory's name.
const summarySelect = { role: true, factory: { select: { id: true, slug: true, name: true } } } as const;
const byName = [{ factory: { name: 'asc' } }, { factoryId: 'asc' }] as const;
const toSummary = (m: { role: Role; factory: { id: string; slug: string; name: string } }): FactorySummary => ({ ...m.factory, role: m.role });

/** Factories the switcher lists: past them it links to the whole list (/factories). */
export const SWITCHER_FACTORIES = 20;

/**
 * The first SWITCHER_FACTORIES factories of a user by name, and how many there
 * are: for the factory switcher on every dashboard page, which drew all of them
 * (1,000 for an instance admin of many teams took 118 ms of every page).
 */
export async function switcherFactories(userId: string, db: DbOrTx = prisma): Promise<{ factories: FactorySummary[]; total: number }> {
  const [memberships, total] = await Promise.all([
    db.membership.findMany({ where: { userId }, select: summarySelect, orderBy: [...byName], take: SWITCHER_FACTORIES }),
    db.membership.count({ where: { userId } }),
  ]);
  return { factories: memberships.map(toSummary), total };
}

/** One page of a user's factories, with their role, by name (the page /factories). */
export async function pageOfFactoriesForUser(userId: string, page: number, db: DbOrTx = prisma, perPage = PAGE_SIZE): Promise<NumberedPage<FactorySummary>> {
  return numberedPage(page, await db.membership.count({ where: { userId } }), perPage, async (skip, take) =>
    (await db.membership.findMany({ where: { userId }, select: summarySelect, orderBy: [...byName], skip, take })).map(toSummary),
  );
}

export type FactoryApiPage = { factories: FactorySummary[]; nextCursor: string | null; total: number };

/**
 * One page of a user's factories by name (then id), for GET /api/v1/factories:
 * an opaque keyset cursor, so that a factory created or left meanwhile neither
 * repeats nor skips another, and the user's total. Bounded, so an instance
 * admin of a thousand teams never reads them all in one request.
 */
export async function listFactoriesPage(userId: string, input: ListFactoriesInput = {}, db: DbOrTx = prisma): Promise<FactoryApiPage> {
  const { limit, cursor } = listFactoriesSchema.parse(input);
  const after = cursor ? decodeNameCursor(cursor) : null;
  const where = after
    ? { userId, OR: [{ factory: { name: { gt: after.name } } }, { factory: { name: after.name }, factoryId: { gt: after.id } }] }
    : { userId };
  const [rows, total] = await Promise.all([
    db.membership.findMany({ where, select: summarySelect, orderBy: [...byName], take: limit + 1 }),
    db.membership.count({ where: { userId } }),
  ]);
  const page = rows.slice(0, limit).map(toSummary);
  const last = page.at(-1);
  return { factories: page, nextCursor: rows.length > limit && last ? encodeNameCursor(last) : null, total };
}
