import { withFactory } from '@/lib/adapters/api/handler';
import { backtestSchema } from '@/lib/domain/automations/schemas';
import { runBacktest } from '@/lib/domain/automations/backtest-gate';

// POST /api/v1/factories/{factory}/automations/backtest with {"trigger": {...}, "limit"?: 1-100}:
// a trigger as written (saved or not) over every Accepted delivery of its webhook in the retained
// log: the counts, and the most recent matches and non-matches (up to `limit` of each); changes nothing;
// bounded by lib/domain/automations/backtest-gate.ts (429 with Retry-After)
export const POST = withFactory('factory:read', backtestSchema, async ({ context, input }) => {
  const result = await runBacktest(context.factory.id, input);
  return Response.json({
    ...result,
    deliveries: result.deliveries.map((d) => ({ ...d, receivedAt: d.receivedAt.toISOString() })),
  });
});
