import 'server-only';
import { prisma, type Db, type DbOrTx, type Tx } from '@/lib/platform/db';
import { advisoryXactLock, lockKeys } from '@/lib/platform/db/locks';
import { burnPasswordCheck, hashPassword, verifyPassword } from '@/lib/platform/crypto/password';
import { AppError } from '@/lib/platform/http/errors';
import { createFactoryTx } from '@/lib/domain/factories/service';
import { firstRunSchema, signInSchema, signUpSchema, type FirstRunInput, type SignUpInput } from '@/lib/domain/users/schemas';

export type PublicUser = { id: string; email: string; name: string | null; instanceAdmin: boolean };

/** The fields of a PublicUser, for every query that loads the signed-in person. */
export const publicUserSelect = { id: true, email: true, name: true, instanceAdmin: true } as const;

export async function needsFirstRun(db: DbOrTx = prisma): Promise<boolean> {
  return (await db.user.findFirst({ select: { id: true } })) === null;
}

/** The message for an email that already has an account, where saying so reveals nothing new. */
export const emailTaken = () =>
  new AppError('conflict', 'An account with this email already exists', { email: 'An account with this email already exists' });

/**
 * Creates an account inside the caller's transaction. The very first account
 * of an instance is its instance admin (the first-run lock makes "first" exact
 * even when two accounts are created at once).
 */
export async function createUserTx(tx: Tx, data: { email: string; name?: string | null; passwordHash: string }): Promise<PublicUser> {
  await advisoryXactLock(tx, lockKeys.firstRun);
  if (await tx.user.findUnique({ where: { email: data.email }, select: { id: true } })) throw emailTaken();
  const first = await needsFirstRun(tx);
  return tx.user.create({
    data: { email: data.email, name: data.name || null, passwordHash: data.passwordHash, instanceAdmin: first },
    select: publicUserSelect,
  });
}

/** Creates an account (sign-up, the CLI). Conflict when the email is taken: callers decide what to tell whom. */
export async function createUser(input: SignUpInput, db: Db = prisma): Promise<PublicUser> {
  const data = signUpSchema.parse(input);
  const passwordHash = await hashPassword(data.password);
  try {
    return await db.$transaction((tx) => createUserTx(tx, { email: data.email, name: data.name, passwordHash }));
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw emailTaken();
    throw error;
  }
}

const alreadySetUp = () => new AppError('conflict', 'Tripline is already set up. Sign in instead.');

/**
 * First run: when no user exists, creates the first account (an instance
 * admin) and its factory (the user is its admin). The advisory lock makes two
 * simultaneous visitors safe: the second one finds a user and is refused.
 */
export async function completeFirstRun(
  input: FirstRunInput,
  db = prisma,
): Promise<{ user: PublicUser; factory: { id: string; slug: string; name: string } }> {
  const data = firstRunSchema.parse(input);
  // Checked before the password is hashed (argon2id, 19 MiB), so a closed
  // first-run form costs the server nothing; checked again under the lock.
  if (!(await needsFirstRun(db))) throw alreadySetUp();
  const passwordHash = await hashPassword(data.password);
  return db.$transaction(async (tx) => {
    await advisoryXactLock(tx, lockKeys.firstRun);
    if (!(await needsFirstRun(tx))) throw alreadySetUp();
    const user = await tx.user.create({
      data: { email: data.email, name: data.name || null, passwordHash, instanceAdmin: true },
      select: publicUserSelect,
    });
    const factory = await createFactoryTx(tx, user.id, { name: data.factoryName, slug: data.factorySlug });
    return { user, factory };
  });
}

export type CredentialsCheck = { outcome: 'ok'; user: PublicUser } | { outcome: 'wrong' } | { outcome: 'disabled' };

/**
 * Checks an email and password. Takes as long for unknown emails. A disabled
 * account is reported only when the password is right, so the answer tells
 * nothing to someone who does not know it.
 */
export async function checkCredentials(input: { email: unknown; password: unknown }, db: DbOrTx = prisma): Promise<CredentialsCheck> {
  const parsed = signInSchema.safeParse(input);
  if (!parsed.success) return { outcome: 'wrong' };
  const user = await db.user.findUnique({ where: { email: parsed.data.email } });
  if (!user) {
    await burnPasswordCheck(parsed.data.password);
    return { outcome: 'wrong' };
  }
  if (!(await verifyPassword(user.passwordHash, parsed.data.password))) return { outcome: 'wrong' };
  if (user.disabledAt) return { outcome: 'disabled' };
  return { outcome: 'ok', user: { id: user.id, email: user.email, name: user.name, instanceAdmin: user.instanceAdmin } };
}

/** The enabled user for an email and password, or null. */
export async function authenticateWithPassword(
  input: { email: unknown; password: unknown },
  db: DbOrTx = prisma,
): Promise<PublicUser | null> {
  const check = await checkCredentials(input, db);
  return check.outcome === 'ok' ? check.user : null;
}
