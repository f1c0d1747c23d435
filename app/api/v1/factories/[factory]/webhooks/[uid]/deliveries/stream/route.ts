import { withFactory } from '@/lib/api/handler';
import { streamDeliveriesSchema } from '@/lib/deliveries/schemas';
import { deliveryEventStream } from '@/lib/deliveries/stream-response';

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries/stream?after=&since=&status=&event=: the log as server-sent events (API token or dashboard session)
export const GET = withFactory<typeof streamDeliveriesSchema, { factory: string; uid: string }>(
  'factory:read',
  streamDeliveriesSchema,
  ({ request, context, params, input, caller }) => deliveryEventStream({ request, context, caller, uid: params.uid, input }),
  { session: true },
);
