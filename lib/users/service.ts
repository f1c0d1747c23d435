import 'server-only';
import { prisma, type DbOrTx } from '@/lib/db';
import { advisoryXactLock, lockKeys } from '@/lib/db/locks';
import { burnPasswordCheck, hashPassword, verifyPassword } from '@/lib/auth/password';
import { AppError } from '@/lib/http/errors';
import { createFactoryTx } from '@/lib/factories/service';
import { firstRunSchema, signInSchema, signUpSchema, type FirstRunInput, type SignUpInput } from '@/lib/users/schemas';

export type PublicUser = { id: string; email: string; name: string | null };

const publicUser = { id: true, email: true, name: true } as const;

export async function userCount(db: DbOrTx = prisma): Promise<number> {
  return db.user.count();
}

export async function needsFirstRun(db: DbOrTx = prisma): Promise<boolean> {
  return (await db.user.findFirst({ select: { id: true } })) === null;
}

export async function createUser(input: SignUpInput, db: DbOrTx = prisma): Promise<PublicUser> {
  const data = signUpSchema.parse(input);
  const existing = await db.user.findUnique({ where: { email: data.email }, select: { id: true } });
  if (existing) {
    throw new AppError('conflict', 'An account with this email already exists', {
      email: 'An account with this email already exists',
    });
  }
  return db.user.create({
    data: { email: data.email, name: data.name || null, passwordHash: await hashPassword(data.password) },
    select: publicUser,
  });
}

/**
 * First run: when no user exists, creates the first account and its factory
 * (the user is its admin). The advisory lock makes two simultaneous visitors
 * safe: the second one finds a user and is refused.
 */
export async function completeFirstRun(
  input: FirstRunInput,
  db = prisma,
): Promise<{ user: PublicUser; factory: { id: string; slug: string; name: string } }> {
  const data = firstRunSchema.parse(input);
  const passwordHash = await hashPassword(data.password);
  return db.$transaction(async (tx) => {
    await advisoryXactLock(tx, lockKeys.firstRun);
    if (!(await needsFirstRun(tx))) {
      throw new AppError('conflict', 'Tripline is already set up. Sign in instead.');
    }
    const user = await tx.user.create({
      data: { email: data.email, name: data.name || null, passwordHash },
      select: publicUser,
    });
    const factory = await createFactoryTx(tx, user.id, { name: data.factoryName, slug: data.factorySlug });
    return { user, factory };
  });
}

/** The user for an email and password, or null. Takes as long for unknown emails. */
export async function authenticateWithPassword(
  input: { email: unknown; password: unknown },
  db: DbOrTx = prisma,
): Promise<PublicUser | null> {
  const parsed = signInSchema.safeParse(input);
  if (!parsed.success) return null;
  const user = await db.user.findUnique({ where: { email: parsed.data.email } });
  if (!user) {
    await burnPasswordCheck(parsed.data.password);
    return null;
  }
  if (!(await verifyPassword(user.passwordHash, parsed.data.password))) return null;
  return { id: user.id, email: user.email, name: user.name };
}

export async function getUserByEmail(email: string, db: DbOrTx = prisma): Promise<PublicUser | null> {
  return db.user.findUnique({ where: { email: email.trim().toLowerCase() }, select: publicUser });
}
