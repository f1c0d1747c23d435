import { withFactory } from '@/lib/api/handler';
import { webhookJson } from '@/lib/webhooks/json';
import { providerSecretSchema } from '@/lib/webhooks/schemas';
import { setProviderSecret } from '@/lib/webhooks/service';

// PUT /api/v1/factories/{factory}/webhooks/{uid}/provider-secret with {"secret"}: the second step
export const PUT = withFactory<typeof providerSecretSchema, { factory: string; uid: string }>('factory:manage', providerSecretSchema, async ({ context, params, input }) => {
  const webhook = await setProviderSecret(context.factory.id, params.uid, input);
  return Response.json({ webhook: webhookJson(webhook) });
});
