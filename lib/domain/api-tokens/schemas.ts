import { z } from 'zod';

export const createApiTokenSchema = z.object({
  name: z.string().trim().min(1, 'Give the token a name, such as "CI pipeline"').max(80, 'Use at most 80 characters'),
});
export type CreateApiTokenInput = z.input<typeof createApiTokenSchema>;
