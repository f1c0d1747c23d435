import { readJson, withFactory } from '@/lib/api/handler';
import { automationJson } from '@/lib/automations/json';
import { createAutomation, listAutomations } from '@/lib/automations/service';

type Params = { factory: string };

// GET /api/v1/factories/{factory}/automations: every member may list
export const GET = withFactory<Params>('factory:read', async ({ context }) => {
  const automations = await listAutomations(context.factory.id);
  return Response.json({ automations: automations.map(automationJson) });
});

// POST /api/v1/factories/{factory}/automations: editors and admins
export const POST = withFactory<Params>('automations:edit', async ({ request, context }) => {
  const automation = await createAutomation(context.factory.id, (await readJson(request)) as never);
  return Response.json({ automation: automationJson(automation) }, { status: 201 });
});
