import { z } from 'zod';

export const userIdSchema = z.object({ userId: z.string().min(1).max(64) });
export const setDisabledSchema = userIdSchema.extend({ disabled: z.boolean() });
export const setInstanceAdminSchema = userIdSchema.extend({ instanceAdmin: z.boolean() });
