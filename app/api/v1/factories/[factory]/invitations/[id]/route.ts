import { withFactory } from '@/lib/adapters/api/handler';
import { revokeInvitation } from '@/lib/domain/invitations/service';

type Params = { factory: string; id: string };

// DELETE /api/v1/factories/{factory}/invitations/{id}: revoke; the link stops working at once
export const DELETE = withFactory<Params>('factory:manage', async ({ context, params }) => {
  await revokeInvitation(context.factory.id, params.id);
  return new Response(null, { status: 204 });
});
