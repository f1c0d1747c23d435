import { withFactory } from '@/lib/api/handler';
import { notificationJson } from '@/lib/notifications/json';
import { listNotifications } from '@/lib/notifications/service';

// GET /api/v1/factories/{factory}/notifications: the newest 50 notifications with their outcome (admins)
export const GET = withFactory('factory:manage', async ({ context }) => {
  return Response.json({ notifications: (await listNotifications(context.factory.id)).map(notificationJson) });
});
