import 'server-only';
import { randomBytes } from 'node:crypto';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { publicUserSelect, type PublicUser } from '@/lib/domain/users/service';

// Browser sessions. The cookie is a next-auth JWT that carries a session id;
// the row here is what makes the session real, so sign-out ends it on every
// instance, and sessions survive restarts because they live in the database.

export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
// Refresh lastSeenAt at most this often, to keep page loads read-only.
const TOUCH_INTERVAL_MS = 5 * 60 * 1000;

export async function createSession(userId: string, userAgent: string | undefined, db: DbOrTx = prisma) {
  return db.session.create({
    data: {
      id: randomBytes(24).toString('base64url'),
      userId,
      userAgent: userAgent?.slice(0, 300) ?? null,
      expiresAt: new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000),
    },
    select: { id: true },
  });
}

export async function getSessionUser(sessionId: string, db: DbOrTx = prisma): Promise<PublicUser | null> {
  const session = await db.session.findUnique({
    where: { id: sessionId },
    select: { expiresAt: true, lastSeenAt: true, user: { select: { ...publicUserSelect, disabledAt: true } } },
  });
  // Disabling an account deletes its sessions; the check here also covers a
  // request that raced with the disabling.
  if (!session || session.expiresAt <= new Date() || session.user.disabledAt) return null;
  if (Date.now() - session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
    await db.session.updateMany({ where: { id: sessionId }, data: { lastSeenAt: new Date() } });
  }
  const { disabledAt: _disabledAt, ...user } = session.user;
  return user;
}

/** Ends every session of a user (disabling the account). */
export async function deleteUserSessions(userId: string, db: DbOrTx = prisma): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { userId } });
  return count;
}

export async function deleteSession(sessionId: string, db: DbOrTx = prisma): Promise<void> {
  await db.session.deleteMany({ where: { id: sessionId } });
}

export async function deleteExpiredSessions(db: DbOrTx = prisma): Promise<number> {
  const { count } = await db.session.deleteMany({ where: { expiresAt: { lte: new Date() } } });
  return count;
}
