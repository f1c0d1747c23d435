import { withFactory } from '@/lib/api/handler';
import { backtestSchema } from '@/lib/automations/schemas';
import { backtestTrigger } from '@/lib/automations/test-filter';

// POST /api/v1/factories/{factory}/automations/backtest with {"trigger": {...}, "limit"?: 1-100}:
// a trigger as written (saved or not) over its webhook's recent Accepted deliveries; changes nothing
export const POST = withFactory('factory:read', backtestSchema, async ({ context, input }) => {
  const result = await backtestTrigger(context.factory.id, input);
  return Response.json({
    ...result,
    deliveries: result.deliveries.map((d) => ({ ...d, receivedAt: d.receivedAt.toISOString() })),
  });
});
