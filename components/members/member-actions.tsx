'use client';

import { useRouter } from 'next/navigation';
import { useId, useState, useTransition } from 'react';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Select } from '@/components/ui/select';
import { roleLabels, roles, type Role } from '@/lib/domain/auth/roles';
import { changeMemberRoleAction, removeMemberAction } from '@/lib/domain/members/actions';
import { reach } from '@/components/forms/reach';

/** Role picker and Remove button for one member row (admins only). */
export function MemberActions({
  factorySlug,
  member,
  isSelf,
}: {
  factorySlug: string;
  member: { userId: string; email: string; role: Role };
  isSelf: boolean;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const errorId = useId();

  const changeRole = (role: Role) =>
    startTransition(async () => {
      setError(null);
      const result = await reach(changeMemberRoleAction)(factorySlug, { userId: member.userId, role });
      if (!result.ok) setError(result.error.message);
      router.refresh();
    });

  const remove = async () => {
    setError(null);
    const result = await reach(removeMemberAction)(factorySlug, { userId: member.userId });
    if (!result.ok) setError(result.error.message);
    if (result.ok && isSelf) router.replace('/');
    else router.refresh();
  };

  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex items-center justify-end gap-2">
        <Select
          aria-label={`Role of ${member.email}`}
          aria-describedby={error ? errorId : undefined}
          className="h-8 w-32"
          value={member.role}
          disabled={pending}
          onChange={(event) => changeRole(event.target.value as Role)}
        >
          {roles.map((role) => (
            <option key={role} value={role}>
              {roleLabels[role]}
            </option>
          ))}
        </Select>
        <ConfirmDialog
          trigger="Remove"
          triggerVariant="secondary"
          triggerSize="sm"
          title={`Remove ${member.email}?`}
          description={
            isSelf
              ? 'You will lose access to this factory immediately.'
              : 'They lose access to this factory immediately. Their account is kept.'
          }
          confirmLabel="Remove member"
          onConfirm={remove}
        />
      </div>
      {error ? (
        <p id={errorId} role="alert" className="max-w-80 text-right text-[13px] text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
