import { readJson, withUser } from '@/lib/adapters/api/handler';
import { createFactorySchema, listFactoriesSchema } from '@/lib/domain/factories/schemas';
import { createFactory, listFactoriesPage } from '@/lib/domain/factories/service';

// GET /api/v1/factories?limit=&cursor=: the caller's factories with their role, by name, a page at a time
export const GET = withUser(async ({ request, user }) => {
  const page = await listFactoriesPage(user.id, listFactoriesSchema.parse(Object.fromEntries(new URL(request.url).searchParams)));
  return Response.json({
    factories: page.factories.map((f) => ({ slug: f.slug, name: f.name, role: f.role })),
    nextCursor: page.nextCursor,
    total: page.total,
  });
});

// POST /api/v1/factories with {"name", "slug"}: create a factory the caller administers (TRIPLINE_FACTORY_CREATION decides who may)
export const POST = withUser(async ({ request, user }) => {
  const input = createFactorySchema.parse(await readJson(request));
  const factory = await createFactory(user.id, input);
  return Response.json({ factory: { slug: factory.slug, name: factory.name, role: 'admin' } }, { status: 201 });
});
