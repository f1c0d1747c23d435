'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { RoleBadge } from '@/components/shell/app-shell';
import { Alert } from '@/components/ui/alert';
import { ConfirmDialog } from '@/components/ui/dialog';
import { DataTable, TD, TR } from '@/components/ui/table';
import type { Role } from '@/lib/domain/auth/roles';
import { revokeInvitationAction } from '@/lib/domain/invitations/actions';
import { dateFormat } from '@/components/format';
import { reach } from '@/components/forms/reach';

export type InvitationRow = { id: string; email: string; role: Role; invitedBy: string | null; createdAt: string; expiresAt: string };

/** Pending invitations of a factory, each revocable (admins only). */
export function PendingInvitations({ factorySlug, invitations }: { factorySlug: string; invitations: InvitationRow[] }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      {error ? (
        <Alert tone="danger" className="m-4">
          {error}
        </Alert>
      ) : null}
      <DataTable
        columns={[
          { header: 'Email' },
          { header: 'Role' },
          { header: 'Invited by' },
          { header: 'Expires' },
          { header: 'Actions', className: 'text-right', hidden: true },
        ]}
      >
        {invitations.map((invitation) => (
          <TR key={invitation.id}>
            <TD className="font-medium text-fg">{invitation.email}</TD>
            <TD label="Role">
              <RoleBadge role={invitation.role} />
            </TD>
            <TD label="Invited by" className="text-fg-muted">{invitation.invitedBy ?? '—'}</TD>
            <TD label="Expires" className="text-fg-muted">{dateFormat.format(new Date(invitation.expiresAt))}</TD>
            <TD className="text-right">
              <ConfirmDialog
                trigger="Revoke"
                triggerVariant="secondary"
                triggerSize="sm"
                title={`Revoke the invitation for ${invitation.email}?`}
                description="The link stops working at once. You can invite them again later."
                confirmLabel="Revoke invitation"
                onConfirm={async () => {
                  setError(null);
                  const result = await reach(revokeInvitationAction)(factorySlug, { id: invitation.id });
                  if (!result.ok) setError(result.error.message);
                  router.refresh();
                }}
              />
            </TD>
          </TR>
        ))}
      </DataTable>
    </>
  );
}
