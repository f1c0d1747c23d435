import { readJson, withFactory } from '@/lib/api/handler';
import { webhookJson } from '@/lib/webhooks/json';
import { setProviderSecret } from '@/lib/webhooks/service';

// PUT /api/v1/factories/{factory}/webhooks/{uid}/provider-secret with {"secret"}: the second step
export const PUT = withFactory<{ factory: string; uid: string }>('factory:manage', async ({ request, context, params }) => {
  const webhook = await setProviderSecret(context.factory.id, params.uid, (await readJson(request)) as never);
  return Response.json({ webhook: webhookJson(webhook) });
});
