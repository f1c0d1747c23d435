import type { Metadata } from 'next';
import { InviteForm } from '@/components/invitations/invite-form';
import { PendingInvitations } from '@/components/invitations/pending-invitations';
import { MemberActions } from '@/components/members/member-actions';
import { RoleBadge } from '@/components/shell/app-shell';
import { Badge } from '@/components/ui/badge';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { DataTable, TD, TR } from '@/components/ui/table';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { listPendingInvitations } from '@/lib/domain/invitations/service';
import { listMembers } from '@/lib/domain/members/service';
import { dateFormat } from '@/components/format';

export const metadata: Metadata = { title: 'Members' };

// GET /f/[factory]/members: everyone reads the list; admins manage it
export default async function MembersPage({ params }: { params: Promise<{ factory: string }> }) {
  const context = await requireFactoryPage((await params).factory);
  const members = await listMembers(context.factory.id);
  const manage = context.can('factory:manage');
  const invitations = manage ? await listPendingInvitations(context.factory.id) : [];

  return (
    <>
      <PageHeader
        title="Members"
        description="Admins manage webhooks, secrets and members. Editors edit automations and test filters. Viewers read."
      />
      <div className="flex flex-col gap-6">
        {manage ? (
          <Card>
            <CardHeader
              title="Invite someone"
              description="Tripline makes a single-use link for their email address. With it they create an account, or join with the one they have."
            />
            <CardBody>
              <InviteForm factorySlug={context.factory.slug} />
            </CardBody>
          </Card>
        ) : null}
        {manage && invitations.length > 0 ? (
          <Card>
            <CardHeader
              title={`${invitations.length} pending ${invitations.length === 1 ? 'invitation' : 'invitations'}`}
              description="Links that have not been used yet. Revoke one to make its link stop working."
            />
            <PendingInvitations
              factorySlug={context.factory.slug}
              invitations={invitations.map((i) => ({ ...i, createdAt: i.createdAt.toISOString(), expiresAt: i.expiresAt.toISOString() }))}
            />
          </Card>
        ) : null}
        <Card>
          <CardHeader title={`${members.length} ${members.length === 1 ? 'member' : 'members'}`} />
          <DataTable
            columns={[
              { header: 'Person' },
              ...(manage ? [] : [{ header: 'Role' }]),
              { header: 'Member since' },
              ...(manage ? [{ header: 'Manage', className: 'text-right' }] : []),
            ]}
          >
            {members.map((member) => {
              const isSelf = member.userId === context.user.id;
              return (
                <TR key={member.userId}>
                  <TD>
                    <div className="flex items-center gap-2">
                      <span className="font-medium text-fg">{member.name || member.email}</span>
                      {isSelf ? <Badge>You</Badge> : null}
                    </div>
                    {member.name ? <div className="text-[13px] text-fg-subtle">{member.email}</div> : null}
                  </TD>
                  {manage ? null : (
                    <TD label="Role">
                      <RoleBadge role={member.role} />
                    </TD>
                  )}
                  <TD label="Member since" className="text-fg-muted">{dateFormat.format(member.since)}</TD>
                  {manage ? (
                    <TD className="text-right">
                      <MemberActions factorySlug={context.factory.slug} member={member} isSelf={isSelf} />
                    </TD>
                  ) : null}
                </TR>
              );
            })}
          </DataTable>
        </Card>
      </div>
    </>
  );
}
