'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Alert } from './alert';
import { ConfirmDialog } from './dialog';

export type DeleteSectionProps = {
  /** The section's heading, the trigger and the confirm button, e.g. "Delete webhook". */
  label: string;
  /** The dialog's title, e.g. "Delete github-deploys?". */
  confirmTitle: string;
  /** What deleting does, shown in the section and in the dialog. */
  consequences: string;
  /** Deletes; a failure's message is shown under the section. */
  remove: () => Promise<{ ok: true } | { ok: false; error: { message: string } }>;
  /** Where to go once deleted. */
  redirectTo: string;
};

/** A "Manage" card's delete row: heading, consequences and a confirmed danger button. */
export function DeleteSection({ label, confirmTitle, consequences, remove, redirectTo }: DeleteSectionProps) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setError(null);
    const result = await remove();
    if (!result.ok) {
      setError(result.error.message);
      return;
    }
    router.push(redirectTo);
  };

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-start justify-between gap-x-6 gap-y-3">
        <div className="min-w-0 flex-1 basis-64">
          <h3 className="font-medium text-fg">{label}</h3>
          <p className="mt-0.5 max-w-2xl text-fg-muted">{consequences}</p>
        </div>
        <ConfirmDialog trigger={label} title={confirmTitle} description={consequences} confirmLabel={label} onConfirm={confirm} />
      </div>
      {error ? <Alert tone="danger">{error}</Alert> : null}
    </div>
  );
}
