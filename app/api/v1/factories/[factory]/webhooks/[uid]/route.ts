import { withFactory } from '@/lib/adapters/api/handler';
import { webhookJson } from '@/lib/domain/webhooks/json';
import { updateWebhookSchema } from '@/lib/domain/webhooks/schemas';
import { deleteWebhook, getWebhook, setCustomResponse, setEventTypeSetting, setExpectedInterval, setIpAllowlist, setWebhookEnabled } from '@/lib/domain/webhooks/service';

type Params = { factory: string; uid: string };

// GET /api/v1/factories/{factory}/webhooks/{uid}
export const GET = withFactory<Params>('factory:read', async ({ context, params }) => {
  return Response.json({ webhook: webhookJson(await getWebhook(context.factory.id, params.uid)) });
});

// PATCH /api/v1/factories/{factory}/webhooks/{uid} with any of {"enabled", "expectedIntervalSeconds", "eventTypeHeader", "eventTypePath", "ipAllowlist", "customResponse"}
export const PATCH = withFactory<typeof updateWebhookSchema, Params>('factory:manage', updateWebhookSchema, async ({ context, params, input }) => {
  let webhook = input.enabled === undefined ? null : await setWebhookEnabled(context.factory.id, params.uid, input.enabled);
  if (input.eventTypeHeader !== undefined || input.eventTypePath !== undefined) {
    webhook = await setEventTypeSetting(context.factory.id, params.uid, { eventTypeHeader: input.eventTypeHeader, eventTypePath: input.eventTypePath });
  }
  if (input.expectedIntervalSeconds !== undefined) webhook = await setExpectedInterval(context.factory.id, params.uid, input.expectedIntervalSeconds);
  if (input.ipAllowlist !== undefined) webhook = await setIpAllowlist(context.factory.id, params.uid, input.ipAllowlist);
  if (input.customResponse !== undefined) webhook = await setCustomResponse(context.factory.id, params.uid, input.customResponse);
  return Response.json({ webhook: webhookJson(webhook!) });
});

// DELETE /api/v1/factories/{factory}/webhooks/{uid}
export const DELETE = withFactory<Params>('factory:manage', async ({ context, params }) => {
  await deleteWebhook(context.factory.id, params.uid);
  return new Response(null, { status: 204 });
});
