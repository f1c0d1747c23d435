import { withFactory } from '@/lib/adapters/api/handler';
import { runSummaryJson } from '@/lib/domain/automations/json';
import { listRuns } from '@/lib/domain/runs/service';
import { listRunsQuerySchema } from '@/lib/domain/runs/schemas';

type Params = { factory: string };

// GET /api/v1/factories/{factory}/runs?automation=&delivery=&limit=: newest first
export const GET = withFactory<Params>('factory:read', async ({ request, context }) => {
  const query = listRunsQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const runs = await listRuns(context.factory.id, { automationId: query.automation, deliveryId: query.delivery, limit: query.limit });
  return Response.json({ runs: runs.map(runSummaryJson) });
});
