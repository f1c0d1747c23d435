import { withFactory } from '@/lib/adapters/api/handler';
import { notificationJson } from '@/lib/domain/notifications/json';
import { listNotifications } from '@/lib/domain/notifications/service';

// GET /api/v1/factories/{factory}/notifications: the newest 50 notifications with their outcome (admins)
export const GET = withFactory('factory:manage', async ({ context }) => {
  return Response.json({ notifications: (await listNotifications(context.factory.id)).map(notificationJson) });
});
