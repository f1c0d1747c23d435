import { withFactory } from '@/lib/api/handler';
import { webhookJson } from '@/lib/webhooks/json';
import { updateWebhookSchema } from '@/lib/webhooks/schemas';
import { deleteWebhook, getWebhook, setWebhookEnabled } from '@/lib/webhooks/service';

type Params = { factory: string; uid: string };

// GET /api/v1/factories/{factory}/webhooks/{uid}
export const GET = withFactory<Params>('factory:read', async ({ context, params }) => {
  return Response.json({ webhook: webhookJson(await getWebhook(context.factory.id, params.uid)) });
});

// PATCH /api/v1/factories/{factory}/webhooks/{uid} with {"enabled": boolean}
export const PATCH = withFactory<typeof updateWebhookSchema, Params>('factory:manage', updateWebhookSchema, async ({ context, params, input: { enabled } }) => {
  return Response.json({ webhook: webhookJson(await setWebhookEnabled(context.factory.id, params.uid, enabled)) });
});

// DELETE /api/v1/factories/{factory}/webhooks/{uid}
export const DELETE = withFactory<Params>('factory:manage', async ({ context, params }) => {
  await deleteWebhook(context.factory.id, params.uid);
  return new Response(null, { status: 204 });
});
