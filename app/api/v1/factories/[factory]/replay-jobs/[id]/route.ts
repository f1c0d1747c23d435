import { withFactory } from '@/lib/adapters/api/handler';
import { getReplayJob, replayJobJson } from '@/lib/domain/replay-jobs/service';

// GET /api/v1/factories/{factory}/replay-jobs/{id}: one job's progress (every member)
export const GET = withFactory<{ factory: string; id: string }>('factory:read', async ({ context, params }) => {
  return Response.json(replayJobJson(await getReplayJob(context.factory.id, params.id)));
});
