'use server';

import { revalidatePath } from 'next/cache';
import { factoryAction } from '@/lib/adapters/actions/action';
import { changeRoleSchema, removeMemberSchema } from '@/lib/domain/members/schemas';
import { changeMemberRole, removeMember } from '@/lib/domain/members/service';

// People join a factory through invitations (lib/domain/invitations), which never
// say whether an email has an account; adding an existing account by email
// is left to the operator's CLI (`tripline member add`).

export const changeMemberRoleAction = factoryAction('factory:manage', changeRoleSchema, async ({ factory }, input) => {
  await changeMemberRole(factory.id, input);
  revalidatePath(`/f/${factory.slug}`, 'layout');
  return null;
});

export const removeMemberAction = factoryAction('factory:manage', removeMemberSchema, async ({ factory }, input) => {
  await removeMember(factory.id, input);
  revalidatePath(`/f/${factory.slug}`, 'layout');
  return null;
});
