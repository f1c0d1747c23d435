import { withFactory } from '@/lib/api/handler';
import { streamDeliveriesSchema } from '@/lib/deliveries/schemas';
import { deliveryEventStream } from '@/lib/deliveries/stream-response';

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries/stream?after=&since=&status=&event=: the log as server-sent events
export const GET = withFactory<typeof streamDeliveriesSchema, { factory: string; uid: string }>('factory:read', streamDeliveriesSchema, ({ request, context, params, input }) =>
  deliveryEventStream({ request, context, uid: params.uid, input }),
);
