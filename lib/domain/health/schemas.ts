import { z } from 'zod';

export const statsQuerySchema = z.object({
  window: z.preprocess((value) => (value === null || value === '' ? undefined : value), z.enum(['24h', '7d'], { error: 'window must be 24h or 7d' }).default('24h')),
});
