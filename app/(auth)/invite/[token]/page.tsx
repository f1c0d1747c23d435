import type { Metadata } from 'next';
import { AcceptAsSignedIn, NewAccountFromInvitation } from '@/components/invitations/accept-invitation';
import { Alert } from '@/components/ui/alert';
import { ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { getCurrentUser } from '@/lib/domain/auth/current-user';
import { roleDescriptions, roleLabels } from '@/lib/domain/auth/roles';
import { inspectInvitation, invitationRefusal } from '@/lib/domain/invitations/service';
import { dateFormat } from '@/components/format';

// The token is in the path: no Referer may carry it to another site.
export const metadata: Metadata = { title: 'Invitation', referrer: 'no-referrer' };

// GET /invite/[token]: accept an invitation, with a new account or the signed-in one
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const [invitation, user] = await Promise.all([inspectInvitation(token), getCurrentUser()]);

  if (invitation.state !== 'pending') {
    return (
      <Card>
        <CardHeader title="This invitation cannot be used" />
        <CardBody>
          <Alert tone="warning">{invitationRefusal(invitation).message}</Alert>
        </CardBody>
        <CardFooter>
          <ButtonLink href={user ? '/' : '/signin'} variant="secondary">
            {user ? 'Go to Tripline' : 'Sign in'}
          </ButtonLink>
        </CardFooter>
      </Card>
    );
  }

  const who = invitation.invitedBy ? `${invitation.invitedBy} invited` : 'You are invited:';
  const description = (
    <>
      {who} <strong className="font-medium text-fg">{invitation.email}</strong> to join{' '}
      <strong className="font-medium text-fg">{invitation.factory.name}</strong> as {roleLabels[invitation.role].toLowerCase()} (
      {roleDescriptions[invitation.role].toLowerCase()}). The link works once, until {dateFormat.format(invitation.expiresAt)}.
    </>
  );

  if (user) {
    const sameEmail = user.email === invitation.email;
    return (
      <Card>
        <CardHeader title={`Join ${invitation.factory.name}`} description={description} />
        <CardBody>
          {sameEmail ? (
            <p className="text-fg-muted">
              You are signed in as <strong className="font-medium text-fg">{user.email}</strong>.
            </p>
          ) : (
            <Alert tone="warning" title={`Accepting adds ${user.email} to ${invitation.factory.name}`}>
              This invitation was sent to {invitation.email}, and you are signed in as {user.email}. If that is not the account you
              meant to use, use another account.
            </Alert>
          )}
        </CardBody>
        <AcceptAsSignedIn token={token} accountEmail={user.email} factoryName={invitation.factory.name} />
      </Card>
    );
  }

  return (
    <Card>
      <CardHeader title={`Join ${invitation.factory.name} on Tripline`} description={description} />
      <NewAccountFromInvitation token={token} email={invitation.email} signInHref={`/signin?callbackUrl=${encodeURIComponent(`/invite/${token}`)}`} />
    </Card>
  );
}
