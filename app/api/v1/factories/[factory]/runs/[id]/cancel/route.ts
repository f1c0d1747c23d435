import { withFactory } from '@/lib/adapters/api/handler';
import { runJson } from '@/lib/domain/automations/json';
import { cancelRun } from '@/lib/domain/runs/cancel';

type Params = { factory: string; id: string };

// POST /api/v1/factories/{factory}/runs/{id}/cancel (editors and admins): a run
// that has not started ends Cancelled at once; a running one is stopped by its worker within seconds
export const POST = withFactory<Params>('automations:edit', async ({ context, params }) => {
  return Response.json({ run: runJson(await cancelRun(context.factory.id, params.id, context.user)) });
});
