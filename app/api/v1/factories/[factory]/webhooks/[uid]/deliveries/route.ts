import { withFactory } from '@/lib/api/handler';
import { deliveryJson, listDeliveries } from '@/lib/deliveries/service';

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries?status=&limit=&cursor=&q=: newest first
export const GET = withFactory<{ factory: string; uid: string }>('factory:read', async ({ request, context, params }) => {
  const search = new URL(request.url).searchParams;
  const page = await listDeliveries(context.factory.id, params.uid, {
    status: search.get('status') ?? undefined,
    limit: search.get('limit') ?? undefined,
    cursor: search.get('cursor') ?? undefined,
    q: search.get('q') ?? undefined,
  } as never);
  return Response.json({ deliveries: page.deliveries.map(deliveryJson), nextCursor: page.nextCursor });
});
