import { withFactory } from '@/lib/api/handler';
import { deleteDestination } from '@/lib/notifications/service';

// DELETE /api/v1/factories/{factory}/notifications/destinations/{id}: its queued notifications go with it
export const DELETE = withFactory<{ factory: string; id: string }>('factory:manage', async ({ context, params }) => {
  await deleteDestination(context.factory.id, params.id);
  return new Response(null, { status: 204 });
});
