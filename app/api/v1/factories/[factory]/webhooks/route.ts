import { readJson, withFactory } from '@/lib/api/handler';
import { webhookJson } from '@/lib/webhooks/json';
import { createWebhook, listWebhooks } from '@/lib/webhooks/service';

type Params = { factory: string };

// GET /api/v1/factories/{factory}/webhooks: every member may list
export const GET = withFactory<Params>('factory:read', async ({ context }) => {
  const webhooks = await listWebhooks(context.factory.id);
  return Response.json({ webhooks: webhooks.map(webhookJson) });
});

// POST /api/v1/factories/{factory}/webhooks: the only response that carries the secret
export const POST = withFactory<Params>('factory:manage', async ({ request, context }) => {
  const result = await createWebhook(context.factory.id, (await readJson(request)) as never);
  return Response.json(
    { webhook: webhookJson(result.webhook), secret: result.secret, ingressUrl: result.ingressUrl },
    { status: 201, headers: { 'Cache-Control': 'no-store' } },
  );
});
