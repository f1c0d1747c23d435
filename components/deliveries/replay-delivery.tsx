'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { runPath } from '@/components/runs/format';
import { Alert } from '@/components/ui/alert';
import { ConfirmDialog } from '@/components/ui/dialog';
import { replayDeliveryAction } from '@/lib/domain/runs/actions';
import type { ReplayResult } from '@/lib/domain/runs/replay';
import { reach } from '@/components/forms/reach';

// Replay (admins, Accepted entries): confirms what it does, then says what
// it started and refreshes the page so Runs and Why not show the new runs.

type Outcome = { ok: true; result: ReplayResult } | { ok: false; message: string };

const names = (items: { automationName: string }[]) => items.map((item) => item.automationName).join(', ');

function ReplayOutcome({ factorySlug, outcome }: { factorySlug: string; outcome: Outcome }) {
  if (!outcome.ok) return <Alert tone="danger" title="Replay failed">{outcome.message}</Alert>;
  const { started, alreadyRun } = outcome.result;
  if (started.length === 0) {
    return (
      <Alert tone="info" title="Nothing new to start">
        {alreadyRun.length > 0
          ? `${names(alreadyRun)} already ran for this delivery.`
          : 'No enabled automation with a trigger on this webhook matches this delivery today.'}
      </Alert>
    );
  }
  return (
    <Alert tone="success" title={`Started ${started.length === 1 ? '1 run' : `${started.length} runs`}`}>
      <ul>
        {started.map((run) => (
          <li key={run.runId}>
            {run.automationName}: <Link href={runPath(factorySlug, { id: run.runId, automation: { id: run.automationId } })}>view run</Link>
          </li>
        ))}
      </ul>
      {alreadyRun.length > 0 ? <p className="mt-1">{names(alreadyRun)} already ran, so it was not started again.</p> : null}
    </Alert>
  );
}

export function ReplayDelivery({ factorySlug, uid, id }: { factorySlug: string; uid: string; id: string }) {
  const router = useRouter();
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const replay = async () => {
    const result = await reach(replayDeliveryAction)(factorySlug, { uid, id });
    setOutcome(result.ok ? { ok: true, result: result.data } : { ok: false, message: result.error.message });
    router.refresh();
  };

  return (
    <div className="flex w-full flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <p className="text-[13px] text-fg-muted">Fixed a filter or added an automation? Replay starts what matches today.</p>
        <ConfirmDialog
          trigger="Replay"
          triggerVariant="secondary"
          triggerSize="sm"
          title="Replay this delivery?"
          description="It is checked again against today’s automations: each enabled automation with a matching trigger on this webhook that has not run for this delivery yet starts a run now."
          confirmLabel="Replay delivery"
          confirmVariant="primary"
          onConfirm={replay}
          size="md"
        >
          <p className="text-[13px] text-fg-muted">
            Automations that already ran for it are not started again. Authentication and signature age are not checked again: the delivery was
            authenticated when it arrived. The log entry records that you replayed it.
          </p>
        </ConfirmDialog>
      </div>
      {outcome ? <ReplayOutcome factorySlug={factorySlug} outcome={outcome} /> : null}
    </div>
  );
}
