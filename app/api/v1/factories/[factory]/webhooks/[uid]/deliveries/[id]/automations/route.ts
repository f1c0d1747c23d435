import { withFactory } from '@/lib/adapters/api/handler';
import { explanationJson } from '@/lib/domain/automations/json';
import { explainDelivery } from '@/lib/domain/automations/why-not';

type Params = { factory: string; uid: string; id: string };

// GET /api/v1/factories/{factory}/webhooks/{uid}/deliveries/{id}/automations:
// each automation with a trigger on the webhook, and the run it started or why not
export const GET = withFactory<Params>('factory:read', async ({ context, params }) => {
  return Response.json(explanationJson(await explainDelivery(context.factory.id, params.uid, params.id)));
});
