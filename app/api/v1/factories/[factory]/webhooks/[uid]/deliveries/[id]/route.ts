import { withFactory } from '@/lib/adapters/api/handler';
import { deliveryJson, getDelivery } from '@/lib/domain/deliveries/service';

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries/{id}: payload and headers for accepted entries
//
// The payload is the stored body spliced in as its exact text, never parsed
// and serialised again: the ingress accepts any JSON value up to 256 KiB,
// including one nested 100,000 levels deep, which JSON.stringify cannot
// serialise (it recurses), and re-serialising would also change what was
// sent (number literals such as 1.10 or 12345678901234567890, key order).
export const GET = withFactory<{ factory: string; uid: string; id: string }>('factory:read', async ({ context, params }) => {
  const delivery = await getDelivery(context.factory.id, params.uid, params.id);
  const fields = {
    ...deliveryJson(delivery),
    identitySource: delivery.identitySource,
    // The address the server entry resolved from the socket (never a forwarding header the client wrote); null when unknown.
    remoteAddress: delivery.remoteAddress,
    replay: delivery.replay && { count: delivery.replay.count, lastAt: delivery.replay.lastAt.toISOString(), lastBy: delivery.replay.lastBy },
    ...(delivery.status === 'accepted' ? { headers: delivery.headers } : {}),
  };
  const object = JSON.stringify(fields);
  // The body is valid JSON (the ingress checked it before storing), so it is a valid JSON value here.
  const text = delivery.status === 'accepted' && delivery.body !== null ? `{"delivery":${object.slice(0, -1)},"payload":${delivery.body}}}` : `{"delivery":${object}}`;
  return new Response(text, { headers: { 'Content-Type': 'application/json' } });
});
