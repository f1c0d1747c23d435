import { withFactory } from '@/lib/adapters/api/handler';
import { listDeliveriesSchema } from '@/lib/domain/deliveries/schemas';
import { deliveryJson, listDeliveries } from '@/lib/domain/deliveries/service';

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries?status=&limit=&cursor=&q=: newest first
export const GET = withFactory<typeof listDeliveriesSchema, { factory: string; uid: string }>('factory:read', listDeliveriesSchema, async ({ context, params, input }) => {
  const page = await listDeliveries(context.factory.id, params.uid, input);
  return Response.json({ deliveries: page.deliveries.map(deliveryJson), nextCursor: page.nextCursor });
});
