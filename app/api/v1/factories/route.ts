import { withUser } from '@/lib/api/handler';
import { listFactoriesForUser } from '@/lib/factories/service';

// GET /api/v1/factories: the caller's factories with their role
export const GET = withUser(async ({ user }) => {
  const factories = await listFactoriesForUser(user.id);
  return Response.json({
    factories: factories.map((f) => ({ slug: f.slug, name: f.name, role: f.role })),
  });
});
