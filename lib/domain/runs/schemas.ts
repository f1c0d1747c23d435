import { z } from 'zod';

const optionalId = z.string().trim().min(1).max(100).optional();

export const listRunsQuerySchema = z.object({
  automation: optionalId,
  delivery: optionalId,
  limit: z.coerce.number({ error: 'limit must be a number' }).int().min(1, 'limit is at least 1').max(200, 'limit is at most 200').optional(),
});
