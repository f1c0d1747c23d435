'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/ui/dialog';
import { cancelRunAction } from '@/lib/domain/runs/actions';
import { reach } from '@/components/forms/reach';

// The run page's Cancel run (editors and admins): confirms, asks the server,
// and refreshes the page, which then shows the run Cancelled, or Running while
// its worker stops the program.

export function CancelRun({ factorySlug, id, running }: { factorySlug: string; id: string; running: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const onConfirm = async () => {
    const result = await reach(cancelRunAction)(factorySlug, { id });
    setError(result.ok ? null : result.error.message);
    router.refresh();
  };
  return (
    <div className="flex items-center gap-3">
      {error ? (
        <span role="alert" className="text-sm text-red-700">
          {error}
        </span>
      ) : null}
      <ConfirmDialog
        trigger="Cancel run"
        triggerVariant="secondary"
        triggerSize="sm"
        title="Cancel this run?"
        description={
          running
            ? 'The agent is stopped: its program receives SIGTERM, and SIGKILL if it is still running after the grace period (an HTTP executor’s request is aborted and the receiver told). The output so far is kept.'
            : 'The run has not started, and never will.'
        }
        confirmLabel="Cancel run"
        cancelLabel="Keep it"
        onConfirm={onConfirm}
      />
    </div>
  );
}
