import { withFactory } from '@/lib/adapters/api/handler';
import { replayDelivery } from '@/lib/domain/runs/replay';

type Params = { factory: string; uid: string; id: string };

// POST /api/v1/factories/{factory}/webhooks/{uid}/deliveries/{id}/replay (admins):
// starts runs for today's matching automations that have not run for this delivery
export const POST = withFactory<Params>('factory:manage', async ({ context, params }) => {
  return Response.json(await replayDelivery(context.factory.id, params.uid, params.id, context.user));
});
