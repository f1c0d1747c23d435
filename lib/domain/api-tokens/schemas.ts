import { z } from 'zod';

/**
 * API tokens one account may hold. A token is a credential to keep track of
 * and each has its own open-stream slots (lib/domain/deliveries/stream.ts), so
 * the number is bounded: 25 covers a token per machine, pipeline and script of
 * a busy member, and past it revoking a forgotten one is the better answer.
 */
export const MAX_API_TOKENS_PER_USER = 25;

export const createApiTokenSchema = z.object({
  name: z.string().trim().min(1, 'Give the token a name, such as "CI pipeline"').max(80, 'Use at most 80 characters'),
});
export type CreateApiTokenInput = z.input<typeof createApiTokenSchema>;
