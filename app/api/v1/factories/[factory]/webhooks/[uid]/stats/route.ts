import { withFactory } from '@/lib/adapters/api/handler';
import { statsJson } from '@/lib/domain/health/json';
import { statsQuerySchema } from '@/lib/domain/health/schemas';
import { deliveryStats } from '@/lib/domain/health/service';
import { getWebhook, webhookRowId } from '@/lib/domain/webhooks/service';

type Params = { factory: string; uid: string };

// GET /api/v1/factories/{factory}/webhooks/{uid}/stats?window=24h|7d: health and requests per status over time
export const GET = withFactory<typeof statsQuerySchema, Params>('factory:read', statsQuerySchema, async ({ context, params, input }) => {
  const [webhook, id] = await Promise.all([getWebhook(context.factory.id, params.uid), webhookRowId(context.factory.id, params.uid)]);
  return Response.json(statsJson(webhook, await deliveryStats(id, input.window)));
});
