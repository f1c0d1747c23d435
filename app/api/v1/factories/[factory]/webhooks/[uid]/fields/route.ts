import { withFactory } from '@/lib/adapters/api/handler';
import { getFieldCatalogue } from '@/lib/domain/fields/service';

// GET /api/v1/factories/{factory}/webhooks/{uid}/fields: the field catalogue of the latest accepted deliveries
export const GET = withFactory<{ factory: string; uid: string }>('factory:read', async ({ context, params }) => {
  return Response.json(await getFieldCatalogue(context.factory.id, params.uid));
});
