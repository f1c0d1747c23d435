import { withFactory } from '@/lib/adapters/api/handler';
import { applyDefinitions } from '@/lib/domain/definitions/apply';
import { appliedJson, planJson } from '@/lib/domain/definitions/json';
import { definitionFilesSchema } from '@/lib/domain/definitions/schemas';

// POST /api/v1/factories/{factory}/definitions/apply with {"files": {path: yaml}}: all or nothing, managed factories only
export const POST = withFactory('factory:manage', definitionFilesSchema, async ({ context, input: { files } }) => {
  const outcome = await applyDefinitions(context.factory.id, files, { source: 'managed' });
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
