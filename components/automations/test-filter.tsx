'use client';

import { useCallback, useEffect, useState, useTransition, type ReactNode } from 'react';
import { preciseDateTimeFormat, sentence } from '@/components/format';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { Field } from '@/components/ui/field';
import Link from 'next/link';
import { AlertTriangleIcon, CheckCircleIcon, ClockIcon, XIcon } from '@/components/ui/icons';
import { textLinkStyle } from '@/components/ui/text-link';
import { runPath } from '@/components/runs/format';
import type { RunControlPreview } from '@/lib/domain/run-control/preview';
import { Select } from '@/components/ui/select';
import { listTestDeliveriesAction, testTriggerAction, testTriggerOnBodyAction } from '@/lib/domain/automations/actions';
import { MAX_BODY_BYTES } from '@/lib/ingress/limits';
import { Textarea } from '@/components/ui/textarea';
import { explainJsonSyntax } from './form-values';
import type { ActionResult } from '@/lib/adapters/actions/action';
import type { TriggerInput } from '@/lib/domain/automations/schemas';
import type { TestFilterResult } from '@/lib/domain/automations/test-filter';
import { Conditions, Mark } from './filter-checks';
import { reach } from '@/components/forms/reach';

// Test filter (docs/automations.md, Test filter, Backtest, Why not, Replay): runs one trigger, exactly as it is written in the
// editor (unsaved edits included), against a delivery its webhook accepted,
// and shows each check with its reason. Nothing is saved and no run starts.

type TestDelivery = { id: string; deliveryId: string; receivedAt: Date };

type Deliveries = { state: 'loading' } | { state: 'loaded'; items: TestDelivery[] } | { state: 'failed'; message: string };

/** Why a pasted body cannot be tested, in words, or null: it must be JSON the ingress would accept. */
function pastedBodyProblem(text: string): string | null {
  if (text.trim() === '') return 'Paste a JSON body to test.';
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_BODY_BYTES) {
    return `The body is ${bytes.toLocaleString('en')} bytes; the ingress accepts at most ${MAX_BODY_BYTES.toLocaleString('en')} bytes (256 KB).`;
  }
  return explainJsonSyntax(text);
}

export type TriggerToTest = { ok: true; trigger: TriggerInput } | { ok: false; message: string };

function CheckRow({ label, passed, reason, children }: { label: string; passed: boolean; reason: string; children?: ReactNode }) {
  return (
    <li className="flex gap-2.5 px-4 py-3">
      <Mark passed={passed} />
      <div className="min-w-0 flex-1">
        <p>
          <span className="font-medium text-fg">{label}:</span> <span className="text-fg-muted">{sentence(reason)}</span>
        </p>
        {children}
      </div>
    </li>
  );
}

/** What the saved run control would do with the delivery now (docs/automations.md, Run control), as a sentence with the run it names as a link. */
function RunControlSentence({ preview, runHref }: { preview: RunControlPreview; runHref: (runId: string) => string }) {
  switch (preview.outcome) {
    case 'wait':
      return preview.runId ? (
        <>
          Would wait behind run{' '}
          <Link href={runHref(preview.runId)} className={`font-mono text-[13px] ${textLinkStyle}`}>
            {preview.runId}
          </Link>
        </>
      ) : (
        <>Would wait for a free slot</>
      );
    case 'debounce':
    case 'throttle':
      return (
        <>
          {preview.outcome === 'debounce' ? 'Would be debounced until ' : 'Would be throttled until '}
          <time dateTime={preview.until!.toISOString()} title={preview.until!.toISOString()}>
            {preciseDateTimeFormat.format(preview.until!)}
          </time>
        </>
      );
    default:
      return <>{sentence(preview.summary)}</>;
  }
}

function RunControlRow({ preview, edited, runHref }: { preview: RunControlPreview; edited: boolean; runHref: (runId: string) => string }) {
  const Icon = preview.outcome === 'start' ? CheckCircleIcon : preview.outcome === 'skip' ? AlertTriangleIcon : ClockIcon;
  const tone = preview.outcome === 'start' ? 'text-emerald-600' : preview.outcome === 'skip' ? 'text-amber-600' : 'text-sky-600';
  return (
    <li aria-label="Run control" className="flex gap-2.5 px-4 py-3">
      <Icon className={cn('mt-0.5 size-4 shrink-0', tone)} aria-hidden="true" />
      <div className="min-w-0 flex-1">
        <p>
          <span className="font-medium text-fg">Run control:</span>{' '}
          <span className="text-fg-muted">
            <RunControlSentence preview={preview} runHref={runHref} />
          </span>
        </p>
        <p className="mt-1 text-[13px] text-fg-muted">
          Group <code className="font-mono text-fg break-all">{preview.group}</code>. From the saved settings and the group’s runs right now; a
          delivery arriving later may fare otherwise.
          {edited ? ' Save your run control edits to preview them.' : ''}
        </p>
      </div>
    </li>
  );
}

export function TestFilterResultView({
  result,
  deliveryId,
  runControlEdited = false,
  runHref,
}: {
  result: TestFilterResult;
  deliveryId: string | null;
  /** The editor's run control has unsaved edits: the preview is of the saved settings. */
  runControlEdited?: boolean;
  runHref: (runId: string) => string;
}) {
  const { wouldTrigger, webhookCheck, eventCheck, headerCheck, payloadCheck, automationCheck, runControl } = result;
  return (
    <div
      role="status"
      aria-label="Test filter result"
      className={cn('overflow-hidden rounded-lg border bg-surface', wouldTrigger ? 'border-emerald-200' : 'border-red-200')}
    >
      <div className={cn('flex flex-wrap items-center gap-x-2.5 gap-y-1 px-4 py-3', wouldTrigger ? 'bg-emerald-50 text-emerald-900' : 'bg-red-50 text-red-900')}>
        {wouldTrigger ? <CheckCircleIcon className="size-4 shrink-0 text-emerald-600" /> : <XIcon className="size-4 shrink-0 text-red-600" />}
        <p className="font-semibold">{wouldTrigger ? 'Would trigger' : 'Would not trigger'}</p>
        <p className="min-w-0 text-[13px] opacity-80">
          {deliveryId === null ? (
            'the pasted body'
          ) : (
            <>
              delivery <span className="font-mono break-all">{deliveryId}</span>
            </>
          )}
        </p>
      </div>
      <ul className="divide-y divide-line">
        <CheckRow label="Webhook" passed={webhookCheck.passed} reason={webhookCheck.reason} />
        <CheckRow label="Event type" passed={eventCheck.passed} reason={eventCheck.reason} />
        <CheckRow label="Header filter" passed={headerCheck.passed} reason={headerCheck.reason}>
          {headerCheck.checks.length > 0 ? <Conditions checks={headerCheck.checks} className="mt-1.5" /> : null}
        </CheckRow>
        <CheckRow label="Payload filter" passed={payloadCheck.passed} reason={payloadCheck.reason}>
          {payloadCheck.checks.length > 0 ? (
            <Conditions checks={payloadCheck.checks} className="mt-1.5" />
          ) : null}
        </CheckRow>
        <CheckRow label="Automation" passed={automationCheck.passed} reason={automationCheck.reason} />
        {runControl ? <RunControlRow preview={runControl} edited={runControlEdited} runHref={runHref} /> : null}
      </ul>
    </div>
  );
}

/**
 * The Test filter panel of one trigger. `version` identifies the trigger as
 * currently written: a result is shown only while it still describes it.
 */
export function TestFilter({
  factorySlug,
  automationId,
  webhook,
  version,
  readTrigger,
}: {
  factorySlug: string;
  /** A saved automation's: the result then says what its saved run control would do now. */
  automationId?: string;
  /** The trigger's webhook as currently picked, or null when none is. */
  webhook: { uid: string; name: string; listable: boolean } | null;
  version: string;
  /** The trigger and the automation's Enabled as currently written, or why they cannot be tested; whether run control has unsaved edits. */
  readTrigger: () => { trigger: TriggerToTest; automationEnabled: boolean; runControlEdited?: boolean };
}) {
  const [deliveries, setDeliveries] = useState<Deliveries>({ state: 'loading' });
  const [picked, setPicked] = useState('');
  const [outcome, setOutcome] = useState<{ version: string; deliveryId: string | null; result: TestFilterResult; runControlEdited: boolean } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [testing, startTest] = useTransition();
  const [source, setSource] = useState<'stored' | 'pasted'>('stored');
  const [pasted, setPasted] = useState('');
  const [pastedError, setPastedError] = useState<string | null>(null);
  const uid = webhook?.listable ? webhook.uid : null;

  const load = useCallback(async (webhookUid: string) => {
    setDeliveries({ state: 'loading' });
    const result = await reach(listTestDeliveriesAction)(factorySlug, { uid: webhookUid });
    if (!result.ok) {
      setDeliveries({ state: 'failed', message: result.error.message });
      return;
    }
    setDeliveries({ state: 'loaded', items: result.data });
    setPicked((current) => (result.data.some((d) => d.id === current) ? current : (result.data[0]?.id ?? '')));
  }, [factorySlug]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the picker's options follow the trigger's webhook
    if (uid) void load(uid);
  }, [uid, load]);

  /** Runs one test: `call` with the trigger as written; a problem with the pasted body goes next to it. */
  const runTest = (
    call: (trigger: TriggerInput, automationEnabled: boolean) => Promise<ActionResult<TestFilterResult>>,
    shown: { version: string; deliveryId: string | null },
  ) =>
    startTest(async () => {
      setProblem(null);
      const { trigger, automationEnabled, runControlEdited = false } = readTrigger();
      if (!trigger.ok) {
        setProblem(trigger.message);
        return;
      }
      const result = await call(trigger.trigger, automationEnabled);
      if (!result.ok) {
        if (result.error.fields?.body) setPastedError(result.error.fields.body);
        else setProblem(Object.values(result.error.fields ?? {})[0] ?? result.error.message);
        return;
      }
      setOutcome({ ...shown, result: result.data, runControlEdited });
    });

  const runPasted = () => {
    const invalid = pastedBodyProblem(pasted);
    setPastedError(invalid);
    if (!invalid) {
      runTest((trigger, automationEnabled) => reach(testTriggerOnBodyAction)(factorySlug, { trigger, body: pasted, automationEnabled }), {
        version: `${version}\u0000${pasted}`,
        deliveryId: null,
      });
    }
  };

  const run = () => {
    const delivery = deliveries.state === 'loaded' ? deliveries.items.find((d) => d.id === picked) : undefined;
    runTest((trigger, automationEnabled) => reach(testTriggerAction)(factorySlug, { trigger, deliveryId: picked, automationEnabled, automationId }), {
      version,
      deliveryId: delivery?.deliveryId ?? picked,
    });
  };

  let body: ReactNode;
  if (source === 'pasted') {
    body = !webhook ? (
      <p className="text-[13px] text-fg-muted">Pick a webhook to test this trigger against a body.</p>
    ) : (
      <div className="flex flex-col gap-2">
        <Field
          label="Body"
          error={pastedError}
          hint={`A payload that has not arrived yet, e.g. copied from the provider’s documentation: JSON, up to ${MAX_BODY_BYTES / 1024} KB like the ingress. It is tested as a delivery to ${webhook.name}.`}
        >
          <Textarea
            mono
            rows={Math.min(Math.max(pasted.split('\n').length + 1, 5), 14)}
            spellCheck={false}
            autoComplete="off"
            placeholder={'{\n  "action": "opened"\n}'}
            value={pasted}
            onChange={(event) => {
              setPasted(event.target.value);
              setPastedError(null);
            }}
          />
        </Field>
        <div className="flex justify-end">
          <Button type="button" onClick={runPasted} loading={testing}>
            Test filter
          </Button>
        </div>
      </div>
    );
  } else if (!webhook) body = <p className="text-[13px] text-fg-muted">Pick a webhook to test this trigger against one of its deliveries.</p>;
  else if (!uid) body = <p className="text-[13px] text-fg-muted">The webhook {webhook.name} was deleted, so this trigger never fires and has no deliveries to test.</p>;
  else if (deliveries.state === 'loading') body = <p className="text-[13px] text-fg-muted">Loading the deliveries of {webhook.name}…</p>;
  else if (deliveries.state === 'failed') body = <p role="alert" className="text-[13px] text-red-700">{deliveries.message}</p>;
  else if (deliveries.items.length === 0) {
    body = (
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <p className="text-[13px] text-fg-muted">{webhook.name} has no accepted delivery yet. Send one to its ingress URL, then test.</p>
        <Button type="button" variant="secondary" size="sm" onClick={() => void load(webhook.uid)}>
          Reload deliveries
        </Button>
      </div>
    );
  } else {
    body = (
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Delivery" className="min-w-64 flex-1">
          <Select value={picked} onChange={(event) => setPicked(event.target.value)} className="font-mono text-[13px]">
            {deliveries.items.map((delivery) => (
              <option key={delivery.id} value={delivery.id}>
                {delivery.deliveryId} · {preciseDateTimeFormat.format(delivery.receivedAt)}
              </option>
            ))}
          </Select>
        </Field>
        <div className="flex gap-2">
          <Button type="button" variant="secondary" onClick={() => void load(webhook.uid)} disabled={testing}>
            Reload
          </Button>
          <Button type="button" onClick={run} loading={testing} disabled={!picked}>
            Test filter
          </Button>
        </div>
      </div>
    );
  }

  return (
    <section aria-label="Test filter" className="flex flex-col gap-3 rounded-lg border border-line bg-subtle/50 p-4">
      <div>
        <h4 className="text-[13px] font-semibold text-fg">Test filter</h4>
        <p className="mt-0.5 text-[13px] text-fg-muted">
          Checks this trigger as written, unsaved edits included, against one of the latest deliveries its webhook accepted or a body you
          paste; for a stored delivery it also says what run control would do with it now. Nothing is saved and no run starts.
        </p>
      </div>
      <div role="group" aria-label="Test against" className="inline-flex self-start rounded-control bg-subtle p-0.5 ring-1 ring-line ring-inset">
        {(
          [
            ['stored', 'A stored delivery'],
            ['pasted', 'A pasted body'],
          ] as const
        ).map(([value, text]) => (
          <button
            key={value}
            type="button"
            aria-pressed={source === value}
            onClick={() => setSource(value)}
            className={cn(
              'inline-flex h-7 items-center rounded-[5px] px-2.5 text-xs font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-accent-600',
              source === value ? 'bg-surface text-fg shadow-xs ring-1 ring-line-strong' : 'text-fg-muted hover:text-fg',
            )}
          >
            {text}
          </button>
        ))}
      </div>
      {body}
      {problem ? (
        <p role="alert" className="text-[13px] text-red-700">
          {problem}
        </p>
      ) : null}
      {outcome && outcome.version === (source === 'pasted' ? `${version}\u0000${pasted}` : version) ? (
        <TestFilterResultView
          result={outcome.result}
          deliveryId={outcome.deliveryId}
          runControlEdited={outcome.runControlEdited}
          runHref={(runId) => runPath(factorySlug, { id: runId, automation: { id: automationId ?? '' } })}
        />
      ) : null}
    </section>
  );
}
