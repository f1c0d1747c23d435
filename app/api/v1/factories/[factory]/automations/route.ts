import { withFactory } from '@/lib/api/handler';
import { automationJson } from '@/lib/automations/json';
import { createAutomationSchema } from '@/lib/automations/schemas';
import { createAutomation, listAutomations } from '@/lib/automations/service';

// GET /api/v1/factories/{factory}/automations: every member may list
export const GET = withFactory('factory:read', async ({ context }) => {
  const automations = await listAutomations(context.factory.id);
  return Response.json({ automations: automations.map(automationJson) });
});

// POST /api/v1/factories/{factory}/automations: editors and admins
export const POST = withFactory('automations:edit', createAutomationSchema, async ({ context, input }) => {
  const automation = await createAutomation(context.factory.id, input);
  return Response.json({ automation: automationJson(automation) }, { status: 201 });
});
