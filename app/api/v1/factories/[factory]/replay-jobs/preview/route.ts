import { withFactory } from '@/lib/adapters/api/handler';
import { startReplayJobSchema } from '@/lib/domain/replay-jobs/schemas';
import { previewJson, previewSelection } from '@/lib/domain/replay-jobs/service';

// POST /api/v1/factories/{factory}/replay-jobs/preview (any member, as Backtest): the selection's count and newest entries; changes nothing
export const POST = withFactory('factory:read', startReplayJobSchema, async ({ context, input }) => {
  return Response.json(previewJson(await previewSelection(context.factory.id, input.selection)));
});
