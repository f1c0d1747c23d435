import { withFactory } from '@/lib/adapters/api/handler';
import { applyRepository } from '@/lib/domain/definitions/repository';
import { repositoryApplySchema } from '@/lib/domain/definitions/schemas';

// POST /api/v1/factories/{factory}/definitions/repository/apply with {"repository"?: {url, branch}, "commit", "plan"?}: apply the
// checked commit (connect, or sync); with "plan" (the check's plan.digest), only if the plan is still that one
export const POST = withFactory('factory:manage', repositoryApplySchema, async ({ context, input }) => {
  return Response.json(await applyRepository(context.factory.id, input, { kind: 'user', userId: context.user.id }));
});
