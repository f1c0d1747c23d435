import { withFactory } from '@/lib/api/handler';
import { deliveryJson, getDelivery } from '@/lib/deliveries/service';

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries/{id}: payload and headers for accepted entries
export const GET = withFactory<{ factory: string; uid: string; id: string }>('factory:read', async ({ context, params }) => {
  const delivery = await getDelivery(context.factory.id, params.uid, params.id);
  return Response.json({
    delivery: {
      ...deliveryJson(delivery),
      identitySource: delivery.identitySource,
      replay: delivery.replay && { count: delivery.replay.count, lastAt: delivery.replay.lastAt.toISOString(), lastBy: delivery.replay.lastBy },
      ...(delivery.status === 'accepted' ? { payload: delivery.payload, headers: delivery.headers } : {}),
    },
  });
});
