import { withFactory } from '@/lib/adapters/api/handler';
import { AppError } from '@/lib/platform/http/errors';
import { connectWebhookSchema } from '@/lib/domain/connections/schemas';
import { connectWebhook, disconnectWebhook, getConnection } from '@/lib/domain/connections/service';

type Params = { factory: string; uid: string };

// GET /api/v1/factories/{factory}/webhooks/{uid}/connection: the connection and its last pass, or null
export const GET = withFactory<Params>('factory:read', async ({ context, params }) => {
  return Response.json({ connection: await getConnection(context.factory.id, params.uid) });
});

// PUT /api/v1/factories/{factory}/webhooks/{uid}/connection: connect (create or adopt the provider's hook) or change the settings
export const PUT = withFactory<typeof connectWebhookSchema, Params>('factory:manage', connectWebhookSchema, async ({ context, params, input }) => {
  return Response.json({ connection: await connectWebhook(context.factory.id, params.uid, input) }, { headers: { 'Cache-Control': 'no-store' } });
});

// DELETE /api/v1/factories/{factory}/webhooks/{uid}/connection[?deleteProviderHook=true]: disconnect
export const DELETE = withFactory<Params>('factory:manage', async ({ request, context, params }) => {
  const flag = new URL(request.url).searchParams.get('deleteProviderHook');
  if (flag !== null && flag !== 'true' && flag !== 'false') {
    throw new AppError('validation_failed', 'deleteProviderHook must be true or false', { deleteProviderHook: 'Use true or false' });
  }
  await disconnectWebhook(context.factory.id, params.uid, { deleteProviderHook: flag === 'true' });
  return new Response(null, { status: 204 });
});
