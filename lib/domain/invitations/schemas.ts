import { z } from 'zod';
import { roleSchema } from '@/lib/domain/members/schemas';
import { emailSchema, newPasswordSchema, personNameSchema } from '@/lib/domain/users/schemas';

export const createInvitationSchema = z.object({ email: emailSchema, role: roleSchema });
export type CreateInvitationInput = z.input<typeof createInvitationSchema>;

export const invitationIdSchema = z.object({ id: z.string().min(1).max(64) });

// `inv_` and 32 random bytes in base64url: 256 bits, unguessable.
export const invitationTokenSchema = z.string().regex(/^inv_[A-Za-z0-9_-]{43}$/, 'This invitation link is not valid');

export const acceptInvitationSchema = z.object({ token: invitationTokenSchema });

/** A new account from an invitation: the email is the invitation's, never typed. */
export const acceptWithNewAccountSchema = z.object({
  token: invitationTokenSchema,
  name: personNameSchema,
  password: newPasswordSchema,
});
export type AcceptWithNewAccountInput = z.input<typeof acceptWithNewAccountSchema>;
/** The form's fields (the token comes from the page). */
export const newAccountFormSchema = acceptWithNewAccountSchema.omit({ token: true });
export type NewAccountFormInput = z.input<typeof newAccountFormSchema>;
