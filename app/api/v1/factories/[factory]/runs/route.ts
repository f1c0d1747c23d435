import { withFactory } from '@/lib/adapters/api/handler';
import { runSummaryJson } from '@/lib/domain/automations/json';
import { listRunsPage } from '@/lib/domain/runs/service';
import { listRunsQuerySchema } from '@/lib/domain/runs/schemas';

type Params = { factory: string };

// GET /api/v1/factories/{factory}/runs?automation=&delivery=&limit=&cursor=: newest first, a page at a time
export const GET = withFactory<typeof listRunsQuerySchema, Params>('factory:read', listRunsQuerySchema, async ({ context, input }) => {
  const page = await listRunsPage(context.factory.id, input);
  return Response.json({ runs: page.runs.map(runSummaryJson), nextCursor: page.nextCursor });
});
