import { z } from 'zod';
import { roles } from '@/lib/domain/auth/roles';
import { emailSchema } from '@/lib/domain/users/schemas';

export const roleSchema = z.enum(roles, { error: 'Choose admin, editor or viewer' });

export const addMemberSchema = z.object({ email: emailSchema, role: roleSchema });
export type AddMemberInput = z.input<typeof addMemberSchema>;

export const changeRoleSchema = z.object({ userId: z.string().min(1), role: roleSchema });
export const removeMemberSchema = z.object({ userId: z.string().min(1) });
