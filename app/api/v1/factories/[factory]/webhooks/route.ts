import { withFactory } from '@/lib/adapters/api/handler';
import { webhookJson } from '@/lib/domain/webhooks/json';
import { createWebhookSchema } from '@/lib/domain/webhooks/schemas';
import { createWebhook, listWebhooks } from '@/lib/domain/webhooks/service';

// GET /api/v1/factories/{factory}/webhooks: every member may list
export const GET = withFactory('factory:read', async ({ context }) => {
  const webhooks = await listWebhooks(context.factory.id);
  return Response.json({ webhooks: webhooks.map(webhookJson) });
});

// POST /api/v1/factories/{factory}/webhooks: the only response that carries the secret
export const POST = withFactory('factory:manage', createWebhookSchema, async ({ context, input }) => {
  const result = await createWebhook(context.factory.id, input);
  return Response.json(
    { webhook: webhookJson(result.webhook), secret: result.secret, ingressUrl: result.ingressUrl },
    { status: 201, headers: { 'Cache-Control': 'no-store' } },
  );
});
