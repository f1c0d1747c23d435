import { readJson, withFactory } from '@/lib/api/handler';
import { previewJson } from '@/lib/definitions/json';
import { previewRepository } from '@/lib/definitions/repository';
import { repositoryCheckSchema } from '@/lib/definitions/schemas';

type Params = { factory: string };

// POST /api/v1/factories/{factory}/definitions/repository/check with {"repository"?: {url, branch}}: fetch the branch, plan its newest commit; changes nothing
export const POST = withFactory<Params>('factory:manage', async ({ request, context }) => {
  const input = repositoryCheckSchema.parse(await readJson(request));
  return Response.json(previewJson(await previewRepository(context.factory.id, input.repository, { kind: 'user', userId: context.user.id })));
});
