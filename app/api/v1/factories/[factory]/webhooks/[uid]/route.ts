import { withFactory } from '@/lib/adapters/api/handler';
import { webhookJson } from '@/lib/domain/webhooks/json';
import { updateWebhookSchema } from '@/lib/domain/webhooks/schemas';
import { deleteWebhook, getWebhook, updateWebhook } from '@/lib/domain/webhooks/service';

type Params = { factory: string; uid: string };

// GET /api/v1/factories/{factory}/webhooks/{uid}
export const GET = withFactory<Params>('factory:read', async ({ context, params }) => {
  return Response.json({ webhook: webhookJson(await getWebhook(context.factory.id, params.uid)) });
});

// PATCH /api/v1/factories/{factory}/webhooks/{uid} with any of {"enabled", "expectedIntervalSeconds", "eventTypeHeader", "eventTypePath", "ipAllowlist", "customResponse"}
export const PATCH = withFactory<typeof updateWebhookSchema, Params>('factory:manage', updateWebhookSchema, async ({ context, params, input }) => {
  // One transaction: a change refused on any field changes nothing.
  return Response.json({ webhook: webhookJson(await updateWebhook(context.factory.id, params.uid, input)) });
});

// DELETE /api/v1/factories/{factory}/webhooks/{uid}
export const DELETE = withFactory<Params>('factory:manage', async ({ context, params }) => {
  await deleteWebhook(context.factory.id, params.uid);
  return new Response(null, { status: 204 });
});
