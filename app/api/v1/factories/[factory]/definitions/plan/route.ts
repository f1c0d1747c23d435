import { withFactory } from '@/lib/api/handler';
import { planJson } from '@/lib/definitions/json';
import { planDefinitions } from '@/lib/definitions/plan';
import { definitionFilesSchema } from '@/lib/definitions/schemas';

// POST /api/v1/factories/{factory}/definitions/plan with {"files": {path: yaml}}: what an apply would do; changes nothing
export const POST = withFactory('factory:manage', definitionFilesSchema, async ({ context, input: { files } }) => {
  return Response.json({ plan: planJson(await planDefinitions(context.factory.id, files)) });
});
