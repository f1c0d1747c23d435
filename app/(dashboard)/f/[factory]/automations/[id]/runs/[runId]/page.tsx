import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { AutoRefresh } from '@/components/deliveries/auto-refresh';
import { formatExactBytes } from '@/components/deliveries/format';
import { InlineTime } from '@/components/deliveries/timestamp';
import { JsonViewer } from '@/components/deliveries/json-viewer';
import { CancelRun } from '@/components/runs/cancel-run';
import { runDuration } from '@/components/runs/format';
import { RunDeliveryId } from '@/components/runs/runs-card';
import { runIsActive, RunStatusBadge } from '@/components/runs/run-status-badge';
import { OutcomeSentence } from '@/components/runs/run-outcome';
import { Alert } from '@/components/ui/alert';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { CodeBlock } from '@/components/ui/code-block';
import { CopyableId } from '@/components/ui/copy-button';
import { DetailRow } from '@/components/ui/detail-row';
import { PageHeader } from '@/components/ui/page-header';
import { orNotFound, requireFactoryPage } from '@/lib/domain/auth/current-user';
import { PAYLOAD_FILE_NAME } from '@/lib/domain/runs/envelope';
import { outcomeExplanation } from '@/lib/domain/runs/outcome';
import { getRun, type RunView } from '@/lib/domain/runs/service';

type Params = Promise<{ factory: string; id: string; runId: string }>;

// Cached so the metadata and the page share one query.
const loadRun = cache(async (factoryId: string, automationId: string, runId: string): Promise<RunView> => {
  const run = await orNotFound(() => getRun(factoryId, runId));
  if (run.automation.id !== automationId) notFound();
  return run;
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { factory: slug, id, runId } = await params;
  const { factory } = await requireFactoryPage(slug);
  return { title: `Run · ${(await loadRun(factory.id, id, runId)).automation.name}` };
}

const linkStyle = 'text-accent-700 hover:text-accent-800 hover:underline hover:underline-offset-2';

function Time({ at, empty }: { at: Date | null; empty: string }) {
  if (!at) return <span className="text-fg-muted">{empty}</span>;
  return <InlineTime at={at} />;
}

/** Who cancelled the run: the delivery (run control's cancel-running) or the member. */
function Canceller({ factorySlug, cancel }: { factorySlug: string; cancel: NonNullable<RunView['cancel']> }) {
  if (cancel.delivery) {
    return (
      <>
        by delivery <RunDeliveryId factorySlug={factorySlug} delivery={cancel.delivery} className="break-all" /> to {cancel.delivery.webhookName}
      </>
    );
  }
  return <>{cancel.by ? `by ${cancel.by}` : 'by a delivery no longer in the log'}</>;
}

function Outcome({ factorySlug, run }: { factorySlug: string; run: RunView }) {
  if (run.status === 'running' && run.cancel) {
    return (
      <p className="text-fg-muted">
        Cancelled <Canceller factorySlug={factorySlug} cancel={run.cancel} />: the worker is stopping the agent. This page updates on its own.
      </p>
    );
  }
  const controlled = run.outcome.kind === 'started' ? null : (
    <div className="flex flex-col gap-1">
      <p className="font-medium text-fg">
        <OutcomeSentence factorySlug={factorySlug} outcome={run.outcome} refs={run.outcomeRefs} />.
      </p>
      <p className="text-fg-muted">
        {outcomeExplanation(run.outcome)}
        {runIsActive(run.status) ? ' This page updates on its own.' : ''}
      </p>
    </div>
  );
  // Only a cancelled run can have got as far as printing something.
  if (controlled && run.status !== 'cancelled') return controlled;
  if (run.status === 'queued') {
    return <p className="text-fg-muted">Waiting for a worker to pick the run up. This page updates on its own.</p>;
  }
  if (run.status === 'running') return <p className="text-fg-muted">The agent is working. This page updates on its own.</p>;
  return (
    <div className="flex flex-col gap-4">
      {controlled}
      {run.status === 'failed' ? (
        <Alert tone="danger" title="The run failed">
          {run.error ? null : 'No error message was recorded.'}
        </Alert>
      ) : null}
      {run.status === 'cancelled' && run.cancel ? (
        <Alert tone="info" title="The run was cancelled">
          Cancelled <Canceller factorySlug={factorySlug} cancel={run.cancel} />.{' '}
          {run.startedAt ? 'The worker stopped the agent; what it printed until then is below.' : 'It had not started, and never ran.'}
        </Alert>
      ) : null}
      {run.error ? <CodeBlock title="Error" code={run.error} wrap className="[&_pre]:max-h-[24rem]" /> : null}
      {run.output ? (
        <CodeBlock title="Output" code={run.output} wrap className="[&_pre]:max-h-[36rem]" />
      ) : run.status === 'succeeded' ? (
        <p className="text-fg-muted">The run succeeded without output.</p>
      ) : null}
    </div>
  );
}

// GET /f/[factory]/automations/[id]/runs/[runId]: one run, as the agent received it and what came of it; every member reads it
export default async function RunPage({ params }: { params: Params }) {
  const { factory: slug, id, runId } = await params;
  const { factory, can } = await requireFactoryPage(slug);
  const run = await loadRun(factory.id, id, runId);
  const base = `/f/${factory.slug}/automations`;
  const automationPath = `${base}/${run.automation.id}`;
  const duration = runDuration(run);
  const active = runIsActive(run.status);
  const cancellable = active && !run.cancel && can('automations:edit');

  return (
    <>
      <PageHeader
        title="Run"
        meta={<RunStatusBadge status={run.status} />}
        description={
          <>
            A run of {run.automation.name}
            {run.delivery ? <>, started by a delivery to {run.delivery.webhookName}</> : null}.
          </>
        }
        breadcrumbs={[{ label: 'Automations', href: base }, { label: run.automation.name, href: automationPath }, { label: 'Run' }]}
        actions={
          active ? (
            <div className="flex items-center gap-3">
              {cancellable ? <CancelRun factorySlug={factory.slug} id={run.id} running={run.status === 'running'} /> : null}
              <AutoRefresh />
            </div>
          ) : null
        }
      />
      <div className="flex flex-col gap-6">
        <Card>
          <CardHeader title="Details" />
          <dl className="divide-y divide-line">
            <DetailRow label="Status">
              <RunStatusBadge status={run.status} />
            </DetailRow>
            <DetailRow label="Run ID">
              <CopyableId value={run.id} label="Copy run ID" />
            </DetailRow>
            <DetailRow label="Automation">
              <Link href={automationPath} className={linkStyle}>
                {run.automation.name}
              </Link>
            </DetailRow>
            <DetailRow label="Delivery ID">
              {run.delivery ? (
                <>
                  <RunDeliveryId factorySlug={factory.slug} delivery={run.delivery} className="break-all" />
                  <span className="ml-1.5 text-fg-muted">
                    to {run.delivery.webhookName}
                    {run.delivery.webhookDeleted ? ' (deleted, so its log is closed)' : ''}
                  </span>
                </>
              ) : (
                <span className="text-fg-muted">{run.envelope.deliveryId} (no longer in the delivery log)</span>
              )}
            </DetailRow>
            <DetailRow label="Queued">
              <Time at={run.createdAt} empty="" />
            </DetailRow>
            <DetailRow label="Started">
              <Time at={run.startedAt} empty="Not yet" />
            </DetailRow>
            <DetailRow label="Finished">
              <Time at={run.finishedAt} empty="Not yet" />
              {duration ? <span className="ml-1.5 text-fg-muted">· took {duration}</span> : null}
            </DetailRow>
            {run.attempts > 1 ? <DetailRow label="Attempts">{run.attempts}</DetailRow> : null}
            {run.cancel ? (
              <DetailRow label="Cancelled">
                <Time at={run.cancel.requestedAt} empty="" />
                <span className="ml-1.5 text-fg-muted">
                  · <Canceller factorySlug={factory.slug} cancel={run.cancel} />
                </span>
              </DetailRow>
            ) : null}
            {run.controlKey !== null ? (
              <DetailRow label="Run control key">
                <span className="font-mono text-[13px] break-all">{run.controlKey}</span>
              </DetailRow>
            ) : null}
          </dl>
        </Card>

        <Card role="region" aria-label="Outcome">
          <CardHeader
            title="Outcome"
            description={run.outcome.kind === 'started' ? 'What the agent printed, or why the run failed or was cancelled.' : 'What run control made of the delivery, and what the agent printed if the run started.'}
          />
          <CardBody>
            <Outcome factorySlug={factory.slug} run={run} />
          </CardBody>
        </Card>

        <Card role="region" aria-label="Prompt">
          <CardHeader title="Prompt" description="The automation’s prompt when the run started. The agent receives it followed by the envelope." />
          <CardBody>
            <CodeBlock code={run.prompt} wrap className="[&_pre]:max-h-[24rem]" />
          </CardBody>
        </Card>

        <Card role="region" aria-label="Envelope">
          <CardHeader title="Envelope" description="Added by Tripline after the prompt: it names the webhook and the delivery, and says the payload is untrusted context." />
          <CardBody className="flex flex-col gap-5">
            <CodeBlock title="Text" code={run.envelope.text} wrap />
            <JsonViewer body={JSON.stringify(run.envelope, null, 2)} label="Envelope as JSON" />
          </CardBody>
        </Card>

        {run.attachments.map((attachment) => {
          const size = formatExactBytes(new TextEncoder().encode(attachment.content).length);
          return (
            <Card key={attachment.name} role="region" aria-label={attachment.name}>
              <CardHeader
                title={<span className="font-mono">{attachment.name}</span>}
                description={
                  attachment.name === PAYLOAD_FILE_NAME
                    ? `The delivery’s full JSON body, attached to the run (${size}).`
                    : `${attachment.contentType}, ${size}.`
                }
              />
              <CardBody>
                <JsonViewer body={attachment.content} label={`Contents of ${attachment.name}`} />
              </CardBody>
            </Card>
          );
        })}
      </div>
    </>
  );
}
