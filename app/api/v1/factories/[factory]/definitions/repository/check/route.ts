import { withFactory } from '@/lib/adapters/api/handler';
import { previewJson } from '@/lib/domain/definitions/json';
import { previewRepository } from '@/lib/domain/definitions/repository';
import { repositoryCheckSchema } from '@/lib/domain/definitions/schemas';

// POST /api/v1/factories/{factory}/definitions/repository/check with {"repository"?: {url, branch}}: fetch the branch, plan its newest commit; changes nothing
export const POST = withFactory('factory:manage', repositoryCheckSchema, async ({ context, input }) => {
  return Response.json(previewJson(await previewRepository(context.factory.id, input.repository, { kind: 'user', userId: context.user.id })));
});
