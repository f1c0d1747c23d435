import { withFactory } from '@/lib/adapters/api/handler';
import { streamDeliveriesSchema } from '@/lib/domain/deliveries/schemas';
import { deliveryEventStream } from '@/lib/domain/deliveries/stream-response';

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries/stream?after=&since=&status=&event=: the log as server-sent events (API token or dashboard session)
export const GET = withFactory<typeof streamDeliveriesSchema, { factory: string; uid: string }>(
  'factory:read',
  streamDeliveriesSchema,
  ({ request, context, params, input, caller, reauthorize }) => deliveryEventStream({ request, context, caller, uid: params.uid, input, reauthorize }),
  { session: true },
);
