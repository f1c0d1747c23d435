import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { can, type Permission, type Role } from '@/lib/domain/auth/roles';
import { AppError } from '@/lib/platform/http/errors';
import type { PublicUser } from '@/lib/domain/users/service';

// The single authorization check. Pages, server actions, route handlers and
// the API all call authorizeFactory(); nothing checks roles by hand.
// A non-member gets "not found" (the factory's existence is not revealed);
// a member without the permission gets "forbidden".

export type FactoryContext = {
  user: PublicUser;
  factory: { id: string; slug: string; name: string; configSource: 'dashboard' | 'managed' | 'repository' };
  role: Role;
  can: (permission: Permission) => boolean;
};

export async function authorizeFactory(
  user: PublicUser,
  factorySlug: string,
  permission: Permission,
  db: DbOrTx = prisma,
): Promise<FactoryContext> {
  const membership = await db.membership.findFirst({
    where: { userId: user.id, factory: { slug: factorySlug } },
    select: { role: true, factory: { select: { id: true, slug: true, name: true, configSource: true } } },
  });
  if (!membership) throw new AppError('not_found', 'Factory not found');
  if (!can(membership.role, permission)) {
    throw new AppError('forbidden', `This needs the ${requiredRoleName(permission)} role in ${membership.factory.name}`);
  }
  const role = membership.role;
  return { user, factory: membership.factory, role, can: (p) => can(role, p) };
}

function requiredRoleName(permission: Permission): string {
  switch (permission) {
    case 'factory:manage':
      return 'admin';
    case 'automations:edit':
      return 'editor or admin';
    case 'factory:read':
      return 'viewer';
  }
}
