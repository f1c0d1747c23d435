import { withFactory } from '@/lib/adapters/api/handler';
import { automationJson } from '@/lib/domain/automations/json';
import { updateAutomationSchema } from '@/lib/domain/automations/schemas';
import { deleteAutomation, getAutomation, updateAutomation } from '@/lib/domain/automations/service';

type Params = { factory: string; id: string };

// GET /api/v1/factories/{factory}/automations/{id}
export const GET = withFactory<Params>('factory:read', async ({ context, params }) => {
  return Response.json({ automation: automationJson(await getAutomation(context.factory.id, params.id)) });
});

// PATCH /api/v1/factories/{factory}/automations/{id} with any of {"name","prompt","enabled","triggers"}
export const PATCH = withFactory<typeof updateAutomationSchema, Params>('automations:edit', updateAutomationSchema, async ({ context, params, input }) => {
  const automation = await updateAutomation(context.factory.id, params.id, input);
  return Response.json({ automation: automationJson(automation) });
});

// DELETE /api/v1/factories/{factory}/automations/{id}: its triggers and runs go with it
export const DELETE = withFactory<Params>('automations:edit', async ({ context, params }) => {
  await deleteAutomation(context.factory.id, params.id);
  return new Response(null, { status: 204 });
});
