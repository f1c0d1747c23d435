import { withFactory } from '@/lib/adapters/api/handler';
import { createInvitationSchema } from '@/lib/domain/invitations/schemas';
import { createInvitation, listPendingInvitations, type PendingInvitation } from '@/lib/domain/invitations/service';

type Params = { factory: string };

function invitationJson(invitation: PendingInvitation) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    createdAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
  };
}

// GET /api/v1/factories/{factory}/invitations: pending invitations (never their links)
export const GET = withFactory<Params>('factory:manage', async ({ context }) => {
  const invitations = await listPendingInvitations(context.factory.id);
  return Response.json({ invitations: invitations.map(invitationJson) });
});

// POST /api/v1/factories/{factory}/invitations with {"email", "role"}: the only response that carries the link
export const POST = withFactory('factory:manage', createInvitationSchema, async ({ context, input }) => {
  const { url, invitation } = await createInvitation(context.factory.id, context.user.id, input);
  return Response.json({ invitation: invitationJson(invitation), url }, { status: 201 });
});
