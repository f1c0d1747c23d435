import { withFactory } from '@/lib/adapters/api/handler';
import { requestCheck } from '@/lib/domain/connections/service';

// POST /api/v1/factories/{factory}/webhooks/{uid}/connection/check: "Check now", a recovery pass as soon as an instance is free
export const POST = withFactory<{ factory: string; uid: string }>('factory:manage', async ({ context, params }) => {
  return Response.json({ connection: await requestCheck(context.factory.id, params.uid) }, { status: 202 });
});
