import { withFactory } from '@/lib/adapters/api/handler';
import { destinationJson } from '@/lib/domain/notifications/json';
import { createDestinationSchema } from '@/lib/domain/notifications/schemas';
import { createDestination, listDestinations } from '@/lib/domain/notifications/service';

// GET /api/v1/factories/{factory}/notifications/destinations
export const GET = withFactory('factory:manage', async ({ context }) => {
  return Response.json({ destinations: (await listDestinations(context.factory.id)).map(destinationJson) });
});

// POST /api/v1/factories/{factory}/notifications/destinations: a signed destination's secret is in this answer only
export const POST = withFactory<typeof createDestinationSchema>('factory:manage', createDestinationSchema, async ({ context, input }) => {
  const { destination, secret } = await createDestination(context.factory.id, input);
  return Response.json({ destination: destinationJson(destination), secret }, { status: 201, headers: { 'Cache-Control': 'no-store' } });
});
