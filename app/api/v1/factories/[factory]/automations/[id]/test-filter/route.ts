import { withFactory } from '@/lib/adapters/api/handler';
import { testFilterSchema } from '@/lib/domain/automations/schemas';
import { testSavedTrigger } from '@/lib/domain/automations/test-filter';

type Params = { factory: string; id: string };

// POST /api/v1/factories/{factory}/automations/{id}/test-filter with {"trigger": <index>, "deliveryId": <log entry id>}:
// changes nothing, so every member may ask
export const POST = withFactory<typeof testFilterSchema, Params>('factory:read', testFilterSchema, async ({ context, params, input }) => {
  return Response.json(await testSavedTrigger(context.factory.id, params.id, input));
});
