'use server';

import { revalidatePath } from 'next/cache';
import { factoryAction } from '@/lib/actions/action';
import { addMemberSchema, changeRoleSchema, removeMemberSchema } from '@/lib/members/schemas';
import { addMember, changeMemberRole, removeMember } from '@/lib/members/service';

export const addMemberAction = factoryAction('factory:manage', addMemberSchema, async ({ factory }, input) => {
  const member = await addMember(factory.id, input);
  revalidatePath(`/f/${factory.slug}/members`);
  return { email: member.email };
});

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
