import { readJson, withFactory } from '@/lib/api/handler';
import { backtestSchema } from '@/lib/automations/schemas';
import { backtestTrigger } from '@/lib/automations/test-filter';

type Params = { factory: string };

// POST /api/v1/factories/{factory}/automations/backtest with {"trigger": {...}, "limit"?: 1-100}:
// a trigger as written (saved or not) over its webhook's recent Accepted deliveries; changes nothing
export const POST = withFactory<Params>('factory:read', async ({ request, context }) => {
  const input = backtestSchema.parse(await readJson(request));
  const result = await backtestTrigger(context.factory.id, input);
  return Response.json({
    ...result,
    deliveries: result.deliveries.map((d) => ({ ...d, receivedAt: d.receivedAt.toISOString() })),
  });
});
