import { withFactory } from '@/lib/adapters/api/handler';
import { webhookJson } from '@/lib/domain/webhooks/json';
import { providerSecretSchema } from '@/lib/domain/webhooks/schemas';
import { setProviderSecret } from '@/lib/domain/webhooks/service';

// PUT /api/v1/factories/{factory}/webhooks/{uid}/provider-secret with {"secret"}: the second step
export const PUT = withFactory<typeof providerSecretSchema, { factory: string; uid: string }>('factory:manage', providerSecretSchema, async ({ context, params, input }) => {
  const webhook = await setProviderSecret(context.factory.id, params.uid, input);
  return Response.json({ webhook: webhookJson(webhook) });
});
