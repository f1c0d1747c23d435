import { withFactory } from '@/lib/adapters/api/handler';
import { planJson } from '@/lib/domain/definitions/json';
import { planDefinitions } from '@/lib/domain/definitions/plan';
import { definitionFilesSchema } from '@/lib/domain/definitions/schemas';

// POST /api/v1/factories/{factory}/definitions/plan with {"files": {path: yaml}}: what an apply would do; changes nothing
export const POST = withFactory('factory:manage', definitionFilesSchema, async ({ context, input: { files } }) => {
  return Response.json({ plan: planJson(await planDefinitions(context.factory.id, files)) });
});
