import { withFactory } from '@/lib/adapters/api/handler';
import { sendTestNotification } from '@/lib/domain/notifications/service';

// POST /api/v1/factories/{factory}/notifications/destinations/{id}/test: queues a notification.test event (sent by the housekeeping loop)
export const POST = withFactory<{ factory: string; id: string }>('factory:manage', async ({ context, params }) => {
  const eventId = await sendTestNotification(context.factory.id, params.id, context.factory);
  return Response.json({ eventId }, { status: 202 });
});
