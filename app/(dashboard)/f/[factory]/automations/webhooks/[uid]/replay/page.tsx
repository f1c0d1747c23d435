import type { Metadata } from 'next';
import Link from 'next/link';
import { ZodError } from 'zod';
import { preciseDateTimeFormat } from '@/components/format';
import { ReplayJobAudit } from '@/components/replay-jobs/replay-job-audit';
import { ReplayJobProgress } from '@/components/replay-jobs/replay-job-progress';
import { StartReplayJob } from '@/components/replay-jobs/replay-job-buttons';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { Select } from '@/components/ui/select';
import { firstValue } from '@/lib/adapters/pages/delivery-log';
import { orNotFound, requireFactoryPage } from '@/lib/domain/auth/current-user';
import { listAutomationsForWebhook } from '@/lib/domain/automations/service';
import { AppError } from '@/lib/platform/http/errors';
import { REPLAY_JOB_MAX, type ReplaySelectionInput } from '@/lib/domain/replay-jobs/schemas';
import { listReplayJobs, previewSelection, type SelectionPreview } from '@/lib/domain/replay-jobs/service';
import { getWebhook } from '@/lib/domain/webhooks/service';

export const metadata: Metadata = { title: 'Replay deliveries' };

type SearchParams = Record<string, string | string[] | undefined>;
// A parameter is read to 200 characters at most.
const param = (value: string | string[] | undefined) => firstValue(value).slice(0, 200);

/** The selection the URL asks for: the log's filters (?q=&event=&from=&to=, as the delivery log carries them) or ?automation=<id>.<trigger>. */
function selectionFromSearch(uid: string, search: SearchParams): ReplaySelectionInput {
  const [automation, trigger] = param(search.automation).split('.');
  if (automation) return { webhook: uid, automation, trigger: trigger ?? '0' } as ReplaySelectionInput;
  return { webhook: uid, q: param(search.q), event: param(search.event), from: param(search.from), to: param(search.to) };
}

async function loadPreview(factoryId: string, selection: ReplaySelectionInput): Promise<{ preview: SelectionPreview } | { error: string }> {
  try {
    return { preview: await previewSelection(factoryId, selection) };
  } catch (error) {
    if (error instanceof ZodError) return { error: error.issues.map((issue) => issue.message).join('. ') };
    if (error instanceof AppError && error.code !== 'internal') return { error: error.fields ? Object.values(error.fields).join('. ') : error.message };
    throw error;
  }
}

// GET /f/[factory]/automations/webhooks/[uid]/replay: select deliveries of the webhook, see how many, start a bulk replay (admins) and follow its progress
export default async function ReplayPage({ params, searchParams }: { params: Promise<{ factory: string; uid: string }>; searchParams: Promise<SearchParams> }) {
  const { factory: slug, uid } = await params;
  const context = await requireFactoryPage(slug);
  const { factory } = context;
  const webhook = await orNotFound(() => getWebhook(factory.id, uid));
  const manage = context.can('factory:manage');
  const search = await searchParams;
  const base = `/f/${factory.slug}/automations`;
  const webhookPath = `${base}/webhooks/${webhook.uid}`;
  const selection = selectionFromSearch(webhook.uid, search);
  const [outcome, jobs, automations] = await Promise.all([
    loadPreview(factory.id, selection),
    listReplayJobs(factory.id, 5),
    listAutomationsForWebhook(factory.id, webhook.uid),
  ]);
  const triggers = automations.flatMap((automation) =>
    automation.triggers.flatMap((trigger, index) =>
      trigger.trigger.filter.webhook_ids[0] === webhook.uid ? [{ value: `${automation.id}.${index}`, id: automation.id, name: automation.name, index }] : [],
    ),
  );
  const names = new Map(automations.map((a) => [a.id, a.name]));
  const running = jobs.find((job) => job.status === 'running') ?? null;
  const chosen = param(search.automation);
  const logFilters = Object.fromEntries(['q', 'event'].flatMap((key) => (param(search[key]) ? [[key, param(search[key])]] : [])));
  const logHref = Object.keys(logFilters).length ? `${webhookPath}?${new URLSearchParams({ status: 'accepted', ...logFilters }).toString()}#deliveries` : `${webhookPath}#deliveries`;

  return (
    <>
      <PageHeader
        title="Replay deliveries"
        description={`Replay many of ${webhook.name}’s Accepted deliveries at once against today’s automations, as Replay does for one.`}
        breadcrumbs={[
          { label: 'Automations', href: base },
          { label: 'Webhooks', href: `${base}/webhooks` },
          { label: webhook.name, href: webhookPath },
          { label: 'Replay' },
        ]}
      />
      <div className="flex flex-col gap-6">
        <Card role="region" aria-label="Replay jobs">
          <CardHeader
            title="Replay jobs"
            description="The factory’s latest bulk replays. One runs at a time; progress is kept, so it carries on after a restart."
          />
          {jobs.length === 0 ? (
            <CardBody>
              <EmptyState title="No replay yet" description="Choose deliveries below, check how many, and start." />
            </CardBody>
          ) : (
            <div className="divide-y divide-line">
              {jobs.map((job) => (
                <ReplayJobProgress
                  key={job.id}
                  job={{
                    id: job.id,
                    status: job.status,
                    webhookName: job.webhookName ?? job.webhookUid,
                    total: job.total,
                    done: job.done,
                    runsStarted: job.runsStarted,
                    skipped: job.skipped,
                    waiting: job.waiting,
                  }}
                  factorySlug={factory.slug}
                  manage={manage}
                >
                  <ReplayJobAudit job={job} automationName={typeof job.selection.automation === 'string' ? (names.get(job.selection.automation) ?? null) : null} />
                </ReplayJobProgress>
              ))}
            </div>
          )}
        </Card>

        <Card role="region" aria-label="Selection">
          <CardHeader
            title="Deliveries to replay"
            description={`Accepted deliveries only (the others keep no payload), at most ${REPLAY_JOB_MAX.toLocaleString('en-US')} per replay. Times you enter are UTC.`}
          />
          <CardBody>
            <form method="get" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              <Field label="Search" hint="Delivery ID or payload text">
                <Input name="q" defaultValue={param(search.q)} maxLength={200} />
              </Field>
              <Field label="Event type" hint="e.g. pull_request.* ">
                <Input name="event" defaultValue={param(search.event)} maxLength={200} mono />
              </Field>
              <Field label="Received from">
                <Input name="from" type="datetime-local" step={1} defaultValue={param(search.from).replace(/Z$/, '')} />
              </Field>
              <Field label="Received before">
                <Input name="to" type="datetime-local" step={1} defaultValue={param(search.to).replace(/Z$/, '')} />
              </Field>
              {triggers.length ? (
                <Field label="Or: what an automation’s trigger matches in Backtest" className="sm:col-span-2">
                  <Select name="automation" defaultValue={chosen}>
                    <option value="">No: use the filters above</option>
                    {triggers.map((t) => (
                      <option key={t.value} value={t.value}>
                        {t.name} (trigger {t.index + 1})
                      </option>
                    ))}
                  </Select>
                </Field>
              ) : null}
              <div className="flex items-end gap-3 sm:col-span-2 lg:col-span-2">
                <Button type="submit" variant="secondary">
                  Count deliveries
                </Button>
                <Link href={logHref} className="text-sm text-accent-700 hover:underline hover:underline-offset-2">
                  Back to the delivery log
                </Link>
              </div>
            </form>
          </CardBody>
          <div className="border-t border-line px-5 py-4" aria-live="polite">
            {'error' in outcome ? (
              <Alert tone="danger" title="This selection cannot be replayed">
                {outcome.error}
              </Alert>
            ) : (
              <SelectionSummary preview={outcome.preview} />
            )}
            {'preview' in outcome && outcome.preview.count > 0 && !outcome.preview.tooMany ? (
              <div className="mt-4 flex flex-wrap items-center gap-3">
                {!manage ? (
                  <p className="text-sm text-fg-muted">Admins start a replay.</p>
                ) : running ? (
                  <p className="text-sm text-fg-muted">A replay is running: start this one when it has finished, or cancel it.</p>
                ) : (
                  <StartReplayJob factorySlug={factory.slug} selection={selection} count={outcome.preview.count} />
                )}
              </div>
            ) : null}
          </div>
        </Card>
      </div>
    </>
  );
}

function SelectionSummary({ preview }: { preview: SelectionPreview }) {
  const { count, tooMany, max, untested, deliveries } = preview;
  if (count === 0) return <p className="text-sm text-fg">No Accepted delivery matches this selection.</p>;
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-fg" data-selection-count={tooMany ? '' : count}>
        {tooMany ? (
          <>
            <strong>More than {max.toLocaleString('en-US')}</strong> deliveries match: a replay takes at most {max.toLocaleString('en-US')}. Narrow the selection, e.g.
            with a time range.
          </>
        ) : (
          <>
            <strong>
              {count.toLocaleString('en-US')} {count === 1 ? 'delivery' : 'deliveries'}
            </strong>{' '}
            would be replayed, oldest first. The newest:
          </>
        )}
      </p>
      {untested > 0 ? <p className="text-sm text-amber-800">Backtest could not evaluate {untested.toLocaleString('en-US')} deliveries yet; they are not included.</p> : null}
      <ul className="divide-y divide-line rounded-lg border border-line">
        {deliveries.map((d) => (
          <li key={d.id} className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 px-3 py-2 text-[13px]">
            <span className="min-w-0 truncate font-mono text-fg">{d.deliveryId}</span>
            <span className="flex items-center gap-3 text-fg-muted">
              {d.eventType ? <span className="font-mono">{d.eventType}</span> : null}
              <time dateTime={d.receivedAt.toISOString()}>{preciseDateTimeFormat.format(d.receivedAt)}</time>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
