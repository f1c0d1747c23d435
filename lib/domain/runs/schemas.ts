import { z } from 'zod';

// An empty filter is no filter, as in the API's other lists.
const optionalId = z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().min(1).max(100).optional());

/** Most runs one page of GET .../runs holds. */
export const RUNS_PER_API_PAGE_MAX = 200;

export const listRunsQuerySchema = z.object({
  automation: optionalId,
  delivery: optionalId,
  limit: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number({ error: 'limit must be a number' }).int().min(1, 'limit is at least 1').max(RUNS_PER_API_PAGE_MAX, `limit is at most ${RUNS_PER_API_PAGE_MAX}`).optional(),
  ),
  cursor: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(400, 'Use the nextCursor of a previous page').optional()),
});
