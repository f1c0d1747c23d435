'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { ConfirmDialog } from '@/components/ui/dialog';
import { cancelReplayJobAction, startReplayJobAction } from '@/lib/domain/replay-jobs/actions';
import type { ReplaySelectionInput } from '@/lib/domain/replay-jobs/schemas';
import { reach } from '@/components/forms/reach';

// Start and Cancel of a bulk replay job (admins): each confirms, calls its
// server action and refreshes the page, whose server components read the job.

export function StartReplayJob({ factorySlug, selection, count }: { factorySlug: string; selection: ReplaySelectionInput; count: number }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const deliveries = `${count.toLocaleString('en-US')} ${count === 1 ? 'delivery' : 'deliveries'}`;
  const start = async () => {
    const result = await reach(startReplayJobAction)(factorySlug, { selection });
    setError(result.ok ? null : result.error.message);
    router.refresh();
  };
  return (
    <div className="flex flex-col gap-3">
      <ConfirmDialog
        trigger={`Replay ${deliveries}`}
        triggerVariant="primary"
        title={`Replay ${deliveries}?`}
        description="Each is checked again against today’s automations, oldest first, in the background: every enabled automation with a matching trigger that has not run for a delivery yet starts a run."
        confirmLabel="Start replay"
        confirmVariant="primary"
        onConfirm={start}
        size="md"
      >
        <p className="text-[13px] text-fg-muted">
          The list is fixed now: deliveries that arrive later are not added. The job replays a few deliveries a second, pauses while the run queue is
          full, and carries on after a restart. You can cancel it at any time.
        </p>
      </ConfirmDialog>
      {error ? (
        <Alert tone="danger" title="The replay did not start">
          {error}
        </Alert>
      ) : null}
    </div>
  );
}

export function CancelReplayJob({ factorySlug, id, done, total }: { factorySlug: string; id: string; done: number; total: number }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    const result = await reach(cancelReplayJobAction)(factorySlug, { id });
    setError(result.ok ? null : result.error.message);
    router.refresh();
  };
  return (
    <div className="flex items-center gap-3">
      {error ? <span className="text-sm text-red-700">{error}</span> : null}
      <ConfirmDialog
        trigger="Cancel replay"
        triggerVariant="secondary"
        triggerSize="sm"
        title="Cancel this replay?"
        description={`No further delivery is replayed once you confirm. The ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} already replayed keep their runs.`}
        confirmLabel="Cancel replay"
        cancelLabel="Keep going"
        onConfirm={cancel}
      />
    </div>
  );
}
