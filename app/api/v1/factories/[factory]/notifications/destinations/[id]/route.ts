import { withFactory } from '@/lib/adapters/api/handler';
import { destinationJson } from '@/lib/domain/notifications/json';
import { updateDestinationSchema } from '@/lib/domain/notifications/schemas';
import { deleteDestination, setDestinationEnabled } from '@/lib/domain/notifications/service';

type Params = { factory: string; id: string };

// PATCH /api/v1/factories/{factory}/notifications/destinations/{id} with {"enabled": boolean}:
// a disabled destination receives nothing, and its queued notifications are marked failed
export const PATCH = withFactory<typeof updateDestinationSchema, Params>('factory:manage', updateDestinationSchema, async ({ context, params, input }) => {
  return Response.json({ destination: destinationJson(await setDestinationEnabled(context.factory.id, params.id, input.enabled)) });
});

// DELETE /api/v1/factories/{factory}/notifications/destinations/{id}: its queued notifications go with it
export const DELETE = withFactory<Params>('factory:manage', async ({ context, params }) => {
  await deleteDestination(context.factory.id, params.id);
  return new Response(null, { status: 204 });
});
