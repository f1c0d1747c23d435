import { readJson, withUser } from '@/lib/adapters/api/handler';
import { createFactorySchema } from '@/lib/domain/factories/schemas';
import { createFactory, listFactoriesForUser } from '@/lib/domain/factories/service';

// GET /api/v1/factories: the caller's factories with their role
export const GET = withUser(async ({ user }) => {
  const factories = await listFactoriesForUser(user.id);
  return Response.json({
    factories: factories.map((f) => ({ slug: f.slug, name: f.name, role: f.role })),
  });
});

// POST /api/v1/factories with {"name", "slug"}: create a factory the caller administers (TRIPLINE_FACTORY_CREATION decides who may)
export const POST = withUser(async ({ request, user }) => {
  const input = createFactorySchema.parse(await readJson(request));
  const factory = await createFactory(user.id, input);
  return Response.json({ factory: { slug: factory.slug, name: factory.name, role: 'admin' } }, { status: 201 });
});
