'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/ui/dialog';
import { setInstanceAdminAction, setUserDisabledAction } from '@/lib/domain/instance/actions';
import { reach } from '@/components/forms/reach';

/** Instance admin and Disable/Enable for one account row of the Instance page. */
export function UserActions({
  user,
  isSelf,
}: {
  user: { id: string; email: string; instanceAdmin: boolean; disabled: boolean };
  isSelf: boolean;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);

  const run = async (action: () => Promise<{ ok: true } | { ok: false; error: { message: string } }>) => {
    setError(null);
    const result = await action();
    if (!result.ok) setError(result.error.message);
    router.refresh();
  };

  // Each dialog has its own key: once the action succeeds the row swaps Disable for Enable (and
  // Make for Revoke), and the closing dialog must not be reused with the other one's words.
  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex items-center justify-end gap-2">
        {user.instanceAdmin ? (
          <ConfirmDialog
            key="revoke-admin"
            trigger="Revoke instance admin"
            triggerVariant="secondary"
            triggerSize="sm"
            title={`Revoke instance admin from ${user.email}?`}
            description={
              isSelf
                ? 'You lose the Instance page at once. Your factory roles do not change.'
                : 'They lose the Instance page at once. Their factory roles do not change.'
            }
            confirmLabel="Revoke instance admin"
            onConfirm={() => run(() => reach(setInstanceAdminAction)({ userId: user.id, instanceAdmin: false }))}
          />
        ) : (
          <ConfirmDialog
            key="make-admin"
            trigger="Make instance admin"
            triggerVariant="secondary"
            triggerSize="sm"
            title={`Make ${user.email} an instance admin?`}
            description="Instance admins see every account and factory, disable and enable accounts, and create factories."
            confirmLabel="Make instance admin"
            confirmVariant="primary"
            onConfirm={() => run(() => reach(setInstanceAdminAction)({ userId: user.id, instanceAdmin: true }))}
          />
        )}
        {user.disabled ? (
          <ConfirmDialog
            key="enable"
            trigger="Enable"
            triggerVariant="secondary"
            triggerSize="sm"
            title={`Enable ${user.email}?`}
            description="They can sign in again, and their API tokens work again."
            confirmLabel="Enable account"
            confirmVariant="primary"
            onConfirm={() => run(() => reach(setUserDisabledAction)({ userId: user.id, disabled: false }))}
          />
        ) : isSelf ? null : (
          <ConfirmDialog
            key="disable"
            trigger="Disable"
            triggerVariant="secondary"
            triggerSize="sm"
            title={`Disable ${user.email}?`}
            description="They are signed out everywhere at once, cannot sign in, and their API tokens stop working. Their memberships and data are kept; you can enable the account again."
            confirmLabel="Disable account"
            onConfirm={() => run(() => reach(setUserDisabledAction)({ userId: user.id, disabled: true }))}
          />
        )}
      </div>
      {error ? (
        <p role="alert" className="max-w-80 text-right text-[13px] text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
