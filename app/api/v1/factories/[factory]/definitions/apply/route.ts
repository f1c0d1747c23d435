import { withFactory } from '@/lib/adapters/api/handler';
import { applyDefinitions } from '@/lib/domain/definitions/apply';
import { appliedJson, planJson } from '@/lib/domain/definitions/json';
import { definitionApplySchema } from '@/lib/domain/definitions/schemas';

// POST /api/v1/factories/{factory}/definitions/apply with {"files": {path: yaml}, "plan"?: digest}: all or nothing, managed
// factories only; with "plan" (a plan's digest), only if the plan is still that one
export const POST = withFactory('factory:manage', definitionApplySchema, async ({ context, input: { files, plan } }) => {
  const outcome = await applyDefinitions(context.factory.id, files, { source: 'managed', expectedPlan: plan });
  if (!outcome.ok) {
    const count = outcome.plan.problems.length;
    return Response.json(
      {
        error: {
          code: 'validation_failed',
          message: `Nothing was applied: the definition files have ${count} ${count === 1 ? 'problem' : 'problems'}`,
          problems: outcome.plan.problems,
        },
        plan: planJson(outcome.plan),
      },
      { status: 422 },
    );
  }
  return Response.json(appliedJson(outcome));
});
