import { withFactory } from '@/lib/adapters/api/handler';
import { automationJson } from '@/lib/domain/automations/json';
import { createAutomationSchema, listAutomationsSchema } from '@/lib/domain/automations/schemas';
import { createAutomation, listAutomations } from '@/lib/domain/automations/service';

// GET /api/v1/factories/{factory}/automations?limit=&cursor=: every member may list; by name, a page at a time
export const GET = withFactory<typeof listAutomationsSchema>('factory:read', listAutomationsSchema, async ({ context, input }) => {
  const page = await listAutomations(context.factory.id, input);
  return Response.json({ automations: page.automations.map(automationJson), nextCursor: page.nextCursor, total: page.total });
});

// POST /api/v1/factories/{factory}/automations: editors and admins
export const POST = withFactory('automations:edit', createAutomationSchema, async ({ context, input }) => {
  const automation = await createAutomation(context.factory.id, input);
  return Response.json({ automation: automationJson(automation) }, { status: 201 });
});
