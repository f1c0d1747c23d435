import Link from 'next/link';
import type { ReactNode } from 'react';
import { sentence } from '@/components/format';
import { ReplayBadge, RunStatusBadge } from '@/components/runs/run-status-badge';
import { OutcomeSentence } from '@/components/runs/run-outcome';
import { runPath } from '@/components/runs/format';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardFooter, CardHeader } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { textLinkStyle } from '@/components/ui/text-link';
import type { AutomationExplanation, DeliveryExplanation, TriggerExplanation } from '@/lib/domain/automations/why-not';
import { Conditions } from './filter-checks';

// Why not (delivery page): each automation with a trigger on the delivery's
// webhook, the run the delivery started or why it did not. A silent
// non-match is the question users ask most, so the failing conditions are
// shown the way Test filter shows them, with the value the payload held.

function TriggerOutcome({ trigger }: { trigger: TriggerExplanation }) {
  const label = `Trigger ${trigger.index + 1}`;
  const payloadOnly = trigger.headerChecks.length === 0 && trigger.eventCheck === null;
  if (trigger.matched) {
    return (
      <p className="text-[13px] text-fg-muted">
        <span className="font-medium text-fg">{label}:</span>{' '}
        {!payloadOnly
          ? 'its event types and filters match this delivery today.'
          : trigger.checks.length === 0
            ? 'no payload filter, so every delivery matches.'
            : 'its payload filter matches this delivery today.'}
      </p>
    );
  }
  if (trigger.failedPart === 'event type' && trigger.eventCheck) {
    return (
      <p className="text-[13px] text-fg-muted">
        <span className="font-medium text-fg">{label}:</span> {sentence(trigger.eventCheck.reason)}
      </p>
    );
  }
  const checks = trigger.failedPart === 'header filter' ? trigger.headerChecks : trigger.checks;
  const failed = checks.filter((check) => !check.passed);
  return (
    <div>
      <p className="text-[13px] text-fg-muted">
        <span className="font-medium text-fg">{label}:</span> {failed.length} of {checks.length} {trigger.failedPart === 'header filter' ? 'header ' : ''}condition
        {checks.length === 1 ? '' : 's'} did not match.
      </p>
      <Conditions checks={failed} className="mt-0.5" />
    </div>
  );
}

function AutomationRow({ factorySlug, explanation, accepted }: { factorySlug: string; explanation: AutomationExplanation; accepted: boolean }) {
  const { automation, run, summary, triggers } = explanation;
  // The triggers matter only when nothing started and a payload was kept to explain them with.
  const detailed = !run && accepted && automation.enabled && triggers.length > 0;
  // The summary names the first failing condition; the triggers below show them all, so it is not said twice.
  const failedPart = triggers.find((t) => t.failedPart !== null)?.failedPart ?? 'payload filter';
  const headline = detailed && !triggers.some((t) => t.matched) ? `Did not start: the ${failedPart} did not match` : summary;
  return (
    <li aria-label={automation.name} data-automation-id={automation.id} className="flex flex-col gap-2 px-5 py-4">
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <Link href={`/f/${factorySlug}/automations/${automation.id}`} className={`font-medium ${textLinkStyle}`}>
            {automation.name}
          </Link>
          {automation.enabled ? null : <Badge tone="neutral">Disabled</Badge>}
        </div>
        {run ? (
          <div className="flex items-center gap-2">
            <RunStatusBadge status={run.status} />
            {run.replay ? <ReplayBadge /> : null}
            <Link href={runPath(factorySlug, { id: run.id, automation })} className={`text-[13px] font-medium whitespace-nowrap ${textLinkStyle}`}>
              View run<span className="sr-only"> {run.id}</span>
            </Link>
          </div>
        ) : (
          <Badge tone={accepted ? 'warning' : 'neutral'} dot>
            Did not start
          </Badge>
        )}
      </div>
      {run && run.outcome.kind !== 'started' ? (
        // Run control's outcome names a run or a delivery: shown as links.
        <p className="text-fg-muted">
          <OutcomeSentence factorySlug={factorySlug} outcome={run.outcome} refs={run.outcomeRefs} />
          {run.replay ? ' (when the delivery was replayed)' : ''}.
        </p>
      ) : (
        <p className="text-fg-muted">{sentence(headline)}</p>
      )}
      {detailed ? (
        <div className="flex flex-col gap-2 rounded-lg border border-line bg-subtle/50 px-3.5 py-2.5">
          {triggers.map((trigger) => (
            <TriggerOutcome key={trigger.index} trigger={trigger} />
          ))}
        </div>
      ) : null}
    </li>
  );
}

export function WhyNotCard({
  factorySlug,
  webhookName,
  explanation,
  footer,
}: {
  factorySlug: string;
  webhookName: string;
  explanation: DeliveryExplanation;
  /** Replay, for admins on an Accepted entry. */
  footer?: ReactNode;
}) {
  const { note, automations } = explanation;
  return (
    <Card id="why-not" role="region" aria-label="Automations on this webhook" className="scroll-mt-6">
      <CardHeader
        title="Automations on this webhook"
        description={`Each automation with a trigger on ${webhookName}: the run this delivery started, or why it did not. Filters are checked as they are today.`}
      />
      {note ? (
        <CardBody className="pb-0">
          <Alert tone="info">{note}</Alert>
        </CardBody>
      ) : null}
      {automations.length === 0 ? (
        <EmptyState
          title="No automation has a trigger on this webhook"
          description={`Deliveries to ${webhookName} start nothing until an automation names it in a trigger.`}
          action={
            <ButtonLink href={`/f/${factorySlug}/automations`} variant="secondary" size="sm">
              Go to Automations
            </ButtonLink>
          }
          className="py-10"
        />
      ) : (
        <ul className="divide-y divide-line">
          {automations.map((automation) => (
            <AutomationRow key={automation.automation.id} factorySlug={factorySlug} explanation={automation} accepted={note === null} />
          ))}
        </ul>
      )}
      {footer ? <CardFooter align="between">{footer}</CardFooter> : null}
    </Card>
  );
}
