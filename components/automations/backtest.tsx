'use client';

import Link from 'next/link';
import { useState, useTransition } from 'react';
import { preciseDateTimeFormat } from '@/components/format';
import { deliveryPath } from '@/components/runs/format';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Table, TBody, TD, TH, THead, TR } from '@/components/ui/table';
import { textLinkStyle } from '@/components/ui/text-link';
import { backtestTriggerAction } from '@/lib/domain/automations/actions';
import type { BacktestResult } from '@/lib/domain/automations/test-filter';
import type { TriggerToTest } from './test-filter';
import { reach } from '@/components/forms/reach';

// Backtest: the trigger as written in the editor (unsaved edits included)
// over every Accepted delivery of its webhook in the retained log, to see
// before saving what a filter would have started: the count, and the most
// recent deliveries that would and would not trigger, explained. Nothing is
// saved and no run starts.

const stateNotes: Record<BacktestResult['webhook']['state'], string | null> = {
  live: null,
  disabled: 'The webhook is disabled: it accepts no deliveries until an admin enables it again.',
  deleted: 'The webhook was deleted: this trigger never fires.',
};

const countFormat = new Intl.NumberFormat('en-US');

function examplesNote(deliveries: BacktestResult['deliveries']): string {
  const matches = deliveries.filter((d) => d.wouldTrigger).length;
  const others = deliveries.length - matches;
  const part = (count: number, what: string) => `${count === 1 ? 'the most recent' : `the ${count} most recent`} ${count === 1 ? 'delivery' : 'deliveries'} that would ${what}`;
  const parts = [matches > 0 ? part(matches, 'trigger') : null, others > 0 ? part(others, 'not trigger') : null].filter(Boolean);
  return `Below: ${parts.join(' and ')}, newest first.`;
}

function BacktestResultView({ factorySlug, result }: { factorySlug: string; result: BacktestResult }) {
  const { webhook, tested, untested, wouldTrigger, deliveries } = result;
  const note = stateNotes[webhook.state];
  if (tested === 0) {
    return (
      <p role="status" aria-label="Backtest result" className="text-[13px] text-fg-muted">
        {webhook.name} has no accepted delivery to backtest yet.
      </p>
    );
  }
  return (
    <div role="status" aria-label="Backtest result" className="flex flex-col gap-2">
      <p className="text-[13px] text-fg">
        <span className="font-semibold">
          {countFormat.format(wouldTrigger)} of {countFormat.format(tested)}
        </span>{' '}
        {tested === 1 ? 'delivery' : 'deliveries'} to {webhook.name} in the retained log would trigger.
        {note ? <span className="text-fg-muted"> {note}</span> : null}
      </p>
      {untested > 0 ? (
        <p className="text-[13px] text-fg">
          Partial count: {countFormat.format(untested)} older {untested === 1 ? 'delivery was' : 'deliveries were'} not tested. Their bodies are still
          being prepared for Backtest (this happens in the background after an upgrade, a restore or a burst); run it again in a few minutes for the
          full count.
        </p>
      ) : null}
      <p className="text-[13px] text-fg-muted">{examplesNote(deliveries)}</p>
      <div className="max-h-96 overflow-y-auto rounded-lg border border-line bg-surface">
        <Table className="text-[13px]">
          <THead className="sticky top-0 bg-subtle">
            <TR>
              <TH>Delivery ID</TH>
              <TH className="w-44">Received</TH>
              <TH className="w-36">Result</TH>
              <TH>First failing condition</TH>
            </TR>
          </THead>
          <TBody>
            {deliveries.map((delivery) => (
              <TR key={delivery.id} data-would-trigger={delivery.wouldTrigger}>
                <TD className="max-w-48 py-2">
                  <Link
                    href={deliveryPath(factorySlug, { id: delivery.id, webhookUid: webhook.uid })}
                    title={delivery.deliveryId}
                    className={`block truncate font-mono ${textLinkStyle}`}
                  >
                    {delivery.deliveryId}
                  </Link>
                </TD>
                <TD label="Received" className="py-2 whitespace-nowrap text-fg-muted">
                  <time dateTime={new Date(delivery.receivedAt).toISOString()}>{preciseDateTimeFormat.format(delivery.receivedAt)}</time>
                </TD>
                <TD label="Result" className="py-2">
                  {delivery.wouldTrigger ? (
                    <Badge tone="success" dot>
                      Would trigger
                    </Badge>
                  ) : (
                    <Badge tone="danger" dot>
                      Would not trigger
                    </Badge>
                  )}
                </TD>
                <TD label="First failing condition" className="py-2 text-fg-muted">
                  {delivery.failures[0] ? (
                    <span className="[overflow-wrap:anywhere]">
                      {delivery.failures[0]}
                      {delivery.failures.length > 1 ? <span className="text-fg-subtle"> (+{delivery.failures.length - 1} more)</span> : null}
                    </span>
                  ) : (
                    <span aria-label="None">—</span>
                  )}
                </TD>
              </TR>
            ))}
          </TBody>
        </Table>
      </div>
    </div>
  );
}

/** The Backtest panel of one trigger; like Test filter, a result shows only while `version` still describes the trigger. */
export function Backtest({
  factorySlug,
  listable,
  version,
  readTrigger,
}: {
  factorySlug: string;
  /** False without a webhook picked, or when it was deleted. */
  listable: boolean;
  version: string;
  readTrigger: () => TriggerToTest;
}) {
  const [outcome, setOutcome] = useState<{ version: string; result: BacktestResult } | null>(null);
  const [problem, setProblem] = useState<{ version: string; message: string } | null>(null);
  const [running, startBacktest] = useTransition();

  const run = () =>
    startBacktest(async () => {
      setProblem(null);
      const trigger = readTrigger();
      if (!trigger.ok) {
        setProblem({ version, message: trigger.message });
        return;
      }
      const result = await reach(backtestTriggerAction)(factorySlug, { trigger: trigger.trigger });
      if (!result.ok) {
        setProblem({ version, message: Object.values(result.error.fields ?? {})[0] ?? result.error.message });
        return;
      }
      setOutcome({ version, result: result.data });
    });

  return (
    <section aria-label="Backtest" className="flex flex-col gap-3 rounded-lg border border-line bg-subtle/50 p-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 flex-1 basis-56">
          <h4 className="text-[13px] font-semibold text-fg">Backtest</h4>
          <p className="mt-0.5 text-[13px] text-fg-muted">
            Runs this trigger as written over every accepted delivery of the webhook still in the log (7 days) and shows how many would start a
            run, with the most recent that would and would not. Nothing is saved and no run starts.
          </p>
        </div>
        <Button type="button" variant="secondary" onClick={run} loading={running} disabled={!listable}>
          Backtest
        </Button>
      </div>
      {problem && problem.version === version ? (
        <p role="alert" className="text-[13px] text-red-700">
          {problem.message}
        </p>
      ) : null}
      {outcome && outcome.version === version ? <BacktestResultView factorySlug={factorySlug} result={outcome.result} /> : null}
    </section>
  );
}
