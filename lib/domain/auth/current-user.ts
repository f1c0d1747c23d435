import 'server-only';
import { cache } from 'react';
import { getServerSession } from 'next-auth';
import { notFound, redirect } from 'next/navigation';
import { authorizeFactory, type FactoryContext } from '@/lib/domain/auth/guard';
import { serverSessionOptions } from '@/lib/domain/auth/options';
import type { Permission } from '@/lib/domain/auth/roles';
import { getSessionUser } from '@/lib/domain/auth/sessions';
import { AppError } from '@/lib/platform/http/errors';
import type { PublicUser } from '@/lib/domain/users/service';

/** The signed-in user of this request, or null. Cached for the request. */
export const getCurrentUser = cache(async (): Promise<PublicUser | null> => {
  const session = await getServerSession(serverSessionOptions());
  if (!session?.sid) return null;
  return getSessionUser(session.sid);
});

/** For pages: the signed-in user, or a redirect to the sign-in page. */
export async function requireUser(): Promise<PublicUser> {
  const user = await getCurrentUser();
  if (!user) redirect('/signin');
  return user;
}

/** For pages: the signed-in instance admin; anyone else sees a 404 (the page's existence is not advertised). */
export async function requireInstanceAdminPage(): Promise<PublicUser> {
  const user = await requireUser();
  if (!user.instanceAdmin) notFound();
  return user;
}

/**
 * For pages: the factory context when the user may read the factory. A
 * non-member sees a 404, exactly as for a factory that does not exist.
 */
export const requireFactoryPage = cache(async (factorySlug: string): Promise<FactoryContext> => {
  const user = await requireUser();
  return orNotFound(() => authorizeFactory(user, factorySlug, 'factory:read' satisfies Permission));
});

/** For pages: a lookup whose not_found error becomes the page's 404. */
export async function orNotFound<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') notFound();
    throw error;
  }
}
