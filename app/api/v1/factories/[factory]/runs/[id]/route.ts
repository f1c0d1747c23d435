import { withFactory } from '@/lib/adapters/api/handler';
import { runJson } from '@/lib/domain/automations/json';
import { getRun } from '@/lib/domain/runs/service';

type Params = { factory: string; id: string };

// GET /api/v1/factories/{factory}/runs/{id}: the prompt, envelope and attachments exactly as the executor received them
export const GET = withFactory<Params>('factory:read', async ({ context, params }) => {
  return Response.json({ run: runJson(await getRun(context.factory.id, params.id)) });
});
