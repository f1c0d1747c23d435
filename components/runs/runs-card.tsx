import Link from 'next/link';
import type { ReactNode } from 'react';
import { AutoRefresh } from '@/components/deliveries/auto-refresh';
import { Timestamp } from '@/components/deliveries/timestamp';
import { Card, CardHeader } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { DataTable, TD, TR } from '@/components/ui/table';
import { textLinkStyle } from '@/components/ui/text-link';
import type { RunSummary } from '@/lib/domain/runs/service';
import { deliveryPath, runDuration, runPath } from './format';
import { ReplayBadge, runIsActive, RunStatusBadge } from './run-status-badge';
import { OutcomeSentence } from './run-outcome';

/** A run's delivery ID, linking to its log entry while the webhook's log can be browsed (not once it is deleted). */
export function RunDeliveryId({ factorySlug, delivery, className }: { factorySlug: string; delivery: NonNullable<RunSummary['delivery']>; className: string }) {
  if (delivery.webhookDeleted) {
    return (
      <span title={delivery.deliveryId} className={`font-mono text-[13px] text-fg ${className}`}>
        {delivery.deliveryId}
      </span>
    );
  }
  return (
    <Link href={deliveryPath(factorySlug, delivery)} title={delivery.deliveryId} className={`font-mono text-[13px] ${textLinkStyle} ${className}`}>
      {delivery.deliveryId}
    </Link>
  );
}

/**
 * Runs, newest first: on an automation's page (each names its delivery) or
 * on a delivery's page (each names its automation). Follows queued and
 * running runs live until they finish. Under run control each also says
 * what became of its delivery (Waiting behind run X, Superseded by delivery
 * Y…), and the automation's list names each run's group.
 */
export function RunsCard({
  factorySlug,
  runs,
  show,
  title,
  description,
  empty,
  showKey = false,
}: {
  factorySlug: string;
  runs: RunSummary[];
  /** The column that says where each run comes from. */
  show: 'delivery' | 'automation';
  title: string;
  description: ReactNode;
  empty: { title: string; description: string };
  /** The automation has run control: a column names each run's key. */
  showKey?: boolean;
}) {
  const live = runs.some((run) => runIsActive(run.status));
  return (
    <Card id="runs" role="region" aria-label={title} className="scroll-mt-6">
      <CardHeader title={title} description={description} actions={live ? <AutoRefresh /> : null} />
      {runs.length === 0 ? (
        <EmptyState title={empty.title} description={empty.description} className="py-10" />
      ) : (
        <DataTable
          columns={[
            { header: 'Status', className: 'w-48' },
            { header: show === 'delivery' ? 'Delivery ID' : 'Automation' },
            ...(showKey ? [{ header: 'Key', className: 'w-48' }] : []),
            { header: 'Queued', className: 'w-52' },
            { header: 'Duration', className: 'w-28' },
            { header: 'Actions', className: 'w-20', hidden: true },
          ]}
        >
          {runs.map((run) => (
            <TR key={run.id} data-run-id={run.id}>
              <TD className="py-3">
                <span className="flex items-center gap-1.5">
                  <RunStatusBadge status={run.status} />
                  {run.replay ? <ReplayBadge /> : null}
                </span>
                {run.outcome.kind === 'started' ? null : (
                  <OutcomeSentence factorySlug={factorySlug} outcome={run.outcome} refs={run.outcomeRefs} className="mt-1 block text-xs leading-5 break-words text-fg-muted" />
                )}
              </TD>
              <TD className="max-w-0 py-3">
                {show === 'automation' ? (
                  <Link href={`/f/${factorySlug}/automations/${run.automation.id}`} className={`font-medium ${textLinkStyle}`}>
                    {run.automation.name}
                  </Link>
                ) : run.delivery ? (
                  <>
                    <RunDeliveryId factorySlug={factorySlug} delivery={run.delivery} className="block truncate" />
                    <span className="block truncate text-xs text-fg-subtle">
                      to {run.delivery.webhookName}
                      {run.delivery.webhookDeleted ? ' (deleted)' : ''}
                    </span>
                  </>
                ) : (
                  <span className="text-fg-muted">Delivery no longer in the log</span>
                )}
              </TD>
              {showKey ? (
                <TD label="Key" className="max-w-0 py-3">
                  {run.controlKey === null ? (
                    <span className="text-fg-subtle">(no key)</span>
                  ) : (
                    <span title={run.controlKey} className="block truncate font-mono text-[13px] text-fg">
                      {run.controlKey}
                    </span>
                  )}
                </TD>
              ) : null}
              <TD label="Queued" className="py-3">
                <Timestamp at={run.createdAt} />
              </TD>
              <TD label="Duration" className="py-3 whitespace-nowrap text-fg-muted tabular-nums">
                {runDuration(run) ?? (run.status === 'running' ? 'Running…' : <span aria-label="Not finished">—</span>)}
              </TD>
              <TD className="py-3 text-right">
                <Link href={runPath(factorySlug, run)} className={`font-medium whitespace-nowrap ${textLinkStyle}`}>
                  View<span className="sr-only"> run {run.id}</span>
                </Link>
              </TD>
            </TR>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
