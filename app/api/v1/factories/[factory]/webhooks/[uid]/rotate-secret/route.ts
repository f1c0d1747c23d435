import { withFactory } from '@/lib/adapters/api/handler';
import { rotateWebhookSecret } from '@/lib/domain/webhooks/service';

// POST /api/v1/factories/{factory}/webhooks/{uid}/rotate-secret: the old secret stops working at once
export const POST = withFactory<{ factory: string; uid: string }>('factory:manage', async ({ context, params }) => {
  const { secret, ingressUrl } = await rotateWebhookSecret(context.factory.id, params.uid);
  return Response.json({ secret, ingressUrl }, { headers: { 'Cache-Control': 'no-store' } });
});
