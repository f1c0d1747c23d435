'use server';

import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { withAddressBudget } from '@/lib/domain/auth/sign-in';
import { clientAddress } from '@/lib/platform/entry/client-address';
import { factoryAction, publicAction, userAction } from '@/lib/adapters/actions/action';
import { acceptInvitationSchema, acceptWithNewAccountSchema, createInvitationSchema, invitationIdSchema } from '@/lib/domain/invitations/schemas';
import { acceptInvitation, acceptInvitationWithNewAccount, createInvitation, revokeInvitation } from '@/lib/domain/invitations/service';

export const createInvitationAction = factoryAction('factory:manage', createInvitationSchema, async ({ factory, user }, input) => {
  const { url, invitation } = await createInvitation(factory.id, user.id, input);
  revalidatePath(`/f/${factory.slug}/members`);
  // The only time the link is shown.
  return { url, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt.toISOString() };
});

export const revokeInvitationAction = factoryAction('factory:manage', invitationIdSchema, async ({ factory }, input) => {
  await revokeInvitation(factory.id, input.id);
  revalidatePath(`/f/${factory.slug}/members`);
  return null;
});

export const acceptInvitationAction = userAction(acceptInvitationSchema, async (user, input) => {
  const accepted = await acceptInvitation(input, user);
  return { factorySlug: accepted.factory.slug };
});

// The browser signs in with the invited email and the new password right after.
// It hashes a password for someone not signed in: the client address's
// sign-in budget bounds how often (lib/domain/auth/sign-in.ts withAddressBudget).
export const acceptWithNewAccountAction = publicAction(acceptWithNewAccountSchema, async (input) => {
  const accepted = await withAddressBudget(clientAddress(await headers()), () => acceptInvitationWithNewAccount(input));
  return { factorySlug: accepted.factory.slug, email: accepted.email };
});
