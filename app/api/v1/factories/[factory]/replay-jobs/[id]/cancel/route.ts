import { withFactory } from '@/lib/adapters/api/handler';
import { cancelReplayJob, replayJobJson } from '@/lib/domain/replay-jobs/service';

// POST /api/v1/factories/{factory}/replay-jobs/{id}/cancel (admins): no delivery is replayed after the response
export const POST = withFactory<{ factory: string; id: string }>('factory:manage', async ({ context, params }) => {
  return Response.json(replayJobJson(await cancelReplayJob(context.factory.id, params.id, context.user)));
});
