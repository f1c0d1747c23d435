import Link from 'next/link';
import type { Metadata } from 'next';
import { DetailRow } from '@/components/ui/detail-row';
import { cache } from 'react';
import { formatBytes, formatExactBytes, identitySourceLabels, relativeTime } from '@/components/deliveries/format';
import { preciseDateTimeFormat, sentence } from '@/components/format';
import { JsonViewer } from '@/components/deliveries/json-viewer';
import { FilterOnThis, type FilterOnTargets } from '@/components/deliveries/filter-on-this';
import { ReplayDelivery } from '@/components/deliveries/replay-delivery';
import { RequestHeaders } from '@/components/deliveries/request-headers';
import { DeliveryStatusBadge } from '@/components/deliveries/status-badge';
import { RecoveredBadge, senderName } from '@/components/deliveries/origin-badge';
import { getConnection } from '@/lib/domain/connections/service';
import { WhyNotCard } from '@/components/automations/why-not-card';
import { RunsCard } from '@/components/runs/runs-card';
import { Alert } from '@/components/ui/alert';
import { ButtonLink } from '@/components/ui/button';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { CopyableId } from '@/components/ui/copy-button';
import { ArrowLeftIcon } from '@/components/ui/icons';
import { PageHeader } from '@/components/ui/page-header';
import { orNotFound, requireFactoryPage } from '@/lib/domain/auth/current-user';
import { listAutomationsForWebhook } from '@/lib/domain/automations/service';
import { explainDelivery } from '@/lib/domain/automations/why-not';
import { getDelivery, type DeliveryDetail } from '@/lib/domain/deliveries/service';
import { listRuns } from '@/lib/domain/runs/service';
import { getScheme } from '@/lib/ingress/signatures/registry';
import { getWebhook, type WebhookView } from '@/lib/domain/webhooks/service';

type Params = Promise<{ factory: string; uid: string; id: string }>;

// Cached so the metadata and the page share the queries.
const loadEntry = cache(async (factoryId: string, uid: string, id: string): Promise<{ webhook: WebhookView; delivery: DeliveryDetail }> => {
  const webhook = await orNotFound(() => getWebhook(factoryId, uid));
  const delivery = await orNotFound(() => getDelivery(factoryId, uid, id));
  return { webhook, delivery };
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { factory: slug, uid, id } = await params;
  const { factory } = await requireFactoryPage(slug);
  const { webhook } = await loadEntry(factory.id, uid, id);
  return { title: `Delivery · ${webhook.name}` };
}


/** The header that carried the sender's ID, when the webhook says which. */
function identityHeader(delivery: DeliveryDetail, webhook: WebhookView): string | null {
  if (delivery.identitySource === 'configured_header') return webhook.deliveryIdHeader;
  if (delivery.identitySource === 'provider_header') return (webhook.signatureScheme && getScheme(webhook.signatureScheme)?.deliveryIdHeader) || null;
  return null;
}

function identitySource(delivery: DeliveryDetail): string {
  return identitySourceLabels[delivery.identitySource] ?? delivery.identitySource;
}

/** Entries recorded before addresses were normalised may read "::ffff:127.0.0.1". */
const clientAddress = (address: string) => /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1] ?? address;

async function filterOnTargets(factoryId: string, base: string, uid: string): Promise<FilterOnTargets> {
  const automations = await listAutomationsForWebhook(factoryId, uid);
  return {
    newHref: `${base}/new?webhook=${encodeURIComponent(uid)}`,
    triggers: automations.flatMap((automation) => {
      const onThis = automation.triggers.flatMap((t, index) => (t.webhook.uid === uid ? [index] : []));
      return onThis.map((index) => ({
        label: `Add to a trigger of ${automation.name}${onThis.length > 1 ? ` (trigger ${index + 1})` : ''}`,
        href: `${base}/${encodeURIComponent(automation.id)}?trigger=${index}`,
      }));
    }),
  };
}

// GET /f/[factory]/automations/webhooks/[uid]/deliveries/[id]: one entry of the delivery log; every member reads it
export default async function DeliveryPage({ params }: { params: Params }) {
  const { factory: slug, uid, id } = await params;
  const context = await requireFactoryPage(slug);
  const { factory } = context;
  const { webhook, delivery } = await loadEntry(factory.id, uid, id);
  const base = `/f/${factory.slug}/automations`;
  const webhookPath = `${base}/webhooks/${webhook.uid}`;
  const relative = relativeTime(delivery.receivedAt);
  const header = identityHeader(delivery, webhook);
  const body = delivery.status === 'accepted' ? delivery.body : null;
  // Only an accepted delivery can start runs (docs/automations.md, Matching and the transaction).
  const [runs, explanation, connection] = await Promise.all([
    body !== null ? listRuns(factory.id, { deliveryId: delivery.id }) : null,
    explainDelivery(factory.id, webhook.uid, delivery.id),
    // A recovered entry names its sender by the webhook's connection, when it has one.
    delivery.origin ? getConnection(factory.id, webhook.uid) : null,
  ]);
  const sender = senderName(webhook.signatureScheme, connection?.provider);
  // Replay (admins): only an Accepted entry keeps the payload (a deleted webhook's log is not browsable at all).
  const replayable = body !== null && context.can('factory:manage');
  // Filter on this (editors and admins): a new automation, or any trigger on this webhook.
  const filterOn = body !== null && context.can('automations:edit') ? await filterOnTargets(factory.id, base, webhook.uid) : null;

  const whyNot = (
    <WhyNotCard
      factorySlug={factory.slug}
      webhookName={webhook.name}
      explanation={explanation}
      footer={replayable ? <ReplayDelivery factorySlug={factory.slug} uid={webhook.uid} id={delivery.id} /> : null}
    />
  );

  return (
    <>
      <PageHeader
        title="Delivery"
        meta={
          <>
            <DeliveryStatusBadge status={delivery.status} />
            <RecoveredBadge origin={delivery.origin} provider={sender} />
          </>
        }
        description={
          <>
            A request to {webhook.name}, received {relative ?? `on ${preciseDateTimeFormat.format(delivery.receivedAt)}`}.
          </>
        }
        breadcrumbs={[
          { label: 'Automations', href: base },
          { label: 'Webhooks', href: `${base}/webhooks` },
          { label: webhook.name, href: webhookPath },
          { label: 'Delivery' },
        ]}
        actions={
          <ButtonLink href={`${webhookPath}#deliveries`} variant="secondary">
            <ArrowLeftIcon />
            All deliveries
          </ButtonLink>
        }
      />
      <div className="flex flex-col gap-6">
        <Card>
          <CardHeader title="Details" />
          <dl className="divide-y divide-line">
            <DetailRow label="Status">
              <DeliveryStatusBadge status={delivery.status} />
            </DetailRow>
            {delivery.origin ? (
              <DetailRow label="Origin">
                <RecoveredBadge origin={delivery.origin} provider={sender} />
                <p className="mt-1.5 text-[13px] text-fg-muted">
                  {delivery.origin === 'stripe_import'
                    ? 'Stripe never reached Tripline with this event: a recovery pass fetched it from Stripe’s API and recorded it.'
                    : `The live delivery never reached Tripline: ${sender ?? 'the sender'} sent it again when the webhook’s recovery pass asked, with the same delivery ID.`}
                </p>
              </DetailRow>
            ) : null}
            <DetailRow label="Delivery ID">
              <CopyableId value={delivery.deliveryId} label="Copy delivery ID" />
            </DetailRow>
            <DetailRow label="Event type">
              {delivery.eventType ? (
                <span className="group/row inline-flex items-center gap-1.5">
                  <Link
                    href={`${webhookPath}?${new URLSearchParams({ event: delivery.eventType })}#deliveries`}
                    title="Show this webhook’s deliveries of this type"
                    className="font-mono text-[13px] text-accent-700 hover:text-accent-800 hover:underline hover:underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
                  >
                    {delivery.eventType}
                  </Link>
                  <FilterOnThis on="events" path={[]} value={delivery.eventType} targets={filterOn} />
                </span>
              ) : (
                <span className="text-fg-muted">{delivery.status === 'accepted' ? 'Not named by the sender' : 'None'}</span>
              )}
            </DetailRow>
            <DetailRow label="Identity source">
              {identitySource(delivery)}
              {header ? <span className="ml-1.5 font-mono text-[13px] text-fg-muted">({header})</span> : null}
            </DetailRow>
            <DetailRow label="Size">
              {formatExactBytes(delivery.size)}
              {delivery.size >= 1024 ? <span className="ml-1.5 text-fg-muted">({formatBytes(delivery.size)})</span> : null}
            </DetailRow>
            <DetailRow label="Received">
              <time dateTime={delivery.receivedAt.toISOString()} title={delivery.receivedAt.toISOString()}>
                {preciseDateTimeFormat.format(delivery.receivedAt)}
              </time>
              {relative ? <span className="ml-1.5 text-fg-muted">· {relative}</span> : null}
            </DetailRow>
            <DetailRow label="Client address">
              {delivery.remoteAddress ? (
                <span className="font-mono text-[13px]" title={delivery.remoteAddress}>
                  {clientAddress(delivery.remoteAddress)}
                </span>
              ) : (
                <span className="text-fg-muted">Unknown</span>
              )}
            </DetailRow>
            {delivery.replay ? (
              <DetailRow label="Replays">
                Replayed {delivery.replay.count === 1 ? 'once' : `${delivery.replay.count} times`}, last on{' '}
                <time dateTime={delivery.replay.lastAt.toISOString()} title={delivery.replay.lastAt.toISOString()}>
                  {preciseDateTimeFormat.format(delivery.replay.lastAt)}
                </time>
                {delivery.replay.lastBy ? ` by ${delivery.replay.lastBy}` : null}
              </DetailRow>
            ) : null}
            {delivery.detail ? <DetailRow label="Detail">{sentence(delivery.detail)}</DetailRow> : null}
          </dl>
        </Card>

        {body !== null ? (
          <>
            <Card>
              <CardHeader title="Payload" description="The body exactly as received. A run started by this delivery gets it as event-payload.json." />
              <CardBody>
                <JsonViewer body={body} filterOn={filterOn} />
              </CardBody>
            </Card>
            {runs ? (
              <RunsCard
                factorySlug={factory.slug}
                runs={runs}
                show="automation"
                title="Runs started by this delivery"
                description="One run for each enabled automation with a trigger on this webhook whose filter matched."
                empty={{
                  title: 'No runs',
                  description: 'No enabled automation had a trigger on this webhook whose filter matched this delivery.',
                }}
              />
            ) : null}
            {whyNot}
            {delivery.headers ? (
              <Card>
                <CardHeader title="Request headers" description="Credentials, signatures and anything named like a secret are kept as [redacted]." />
                <RequestHeaders headers={delivery.headers} filterOn={filterOn} />
              </Card>
            ) : null}
          </>
        ) : (
          <>
            <Card>
              <CardHeader title="Payload" />
              <CardBody>
                {delivery.status === 'duplicate' ? (
                  <Alert
                    tone="info"
                    title="Payload not kept: only accepted deliveries keep their payload"
                    actions={
                      <ButtonLink
                        href={`${webhookPath}?${new URLSearchParams({ status: 'accepted', q: delivery.deliveryId })}#deliveries`}
                        variant="secondary"
                        size="sm"
                      >
                        Find the accepted delivery
                      </ButtonLink>
                    }
                  >
                    This request repeated the ID of a delivery that was already accepted; that one keeps the payload and the headers.
                  </Alert>
                ) : delivery.status === 'refused' ? (
                  <Alert tone="warning" title={`${(delivery.refusedCount ?? 0).toLocaleString('en')} refused with 429`}>
                    Requests without valid credentials that arrived while this webhook&apos;s budget for them was spent. Each got 429
                    with Retry-After and none was logged on its own; this entry counts them for its minute.
                  </Alert>
                ) : delivery.status === 'refused_address' ? (
                  <Alert tone="danger" title="Refused: the address is outside the IP allowlist">
                    The request came from an address outside this webhook&apos;s IP allowlist. It got the answer of an unknown
                    webhook (404), so the sender learns nothing of this one, and its body was never read.
                  </Alert>
                ) : (
                  <Alert tone="info" title="Payload not kept: only accepted deliveries keep their payload">
                    {delivery.status === 'handshake'
                      ? 'A handshake keeps its metadata only.'
                      : 'Rejected requests keep their metadata only: no body and no headers.'}
                  </Alert>
                )}
              </CardBody>
            </Card>
            {delivery.status === 'handshake' || delivery.status === 'refused' || delivery.status === 'refused_address' ? null : whyNot}
          </>
        )}
      </div>
    </>
  );
}
