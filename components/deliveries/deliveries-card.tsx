import Link from 'next/link';
import { Alert } from '@/components/ui/alert';
import { ButtonLink } from '@/components/ui/button';
import { Card, CardFooter, CardHeader } from '@/components/ui/card';
import { CodeBlock } from '@/components/ui/code-block';
import { EmptyState } from '@/components/ui/empty-state';
import { InboxIcon } from '@/components/ui/icons';
import { Pager } from '@/components/ui/pager';
import { DataTable, TableEmpty, TD, TR } from '@/components/ui/table';
import { deliveryStatusLabels, searchesPayloads } from '@/lib/domain/deliveries/schemas';
import type { DeliveryLogView } from '@/lib/adapters/pages/delivery-log';
import type { AuthMode } from '@/lib/domain/webhooks/schemas';
import { AutoRefresh } from './auto-refresh';
import { DeliveryFilters } from './delivery-filters';
import { formatBytes, formatExactBytes } from './format';
import { sentence } from '@/components/format';
import { RecoveredBadge } from './origin-badge';
import { DeliveryStatusBadge } from './status-badge';
import { Timestamp } from './timestamp';

const SEARCH_PROBLEM_ID = 'deliveries-search-problem';

export type DeliveryLogWebhook = {
  uid: string;
  authMode: AuthMode;
  /** With the {token} placeholder for URL-token webhooks. */
  ingressUrl: string;
  /** Display name of the sender (its connection's provider, else its signature scheme), if any; names recovered entries' origin. */
  providerName: string | null;
  /** The provider performs verification handshakes: Handshake is offered as a status filter. */
  handshakes?: boolean;
  /** The webhook has an IP allowlist: Refused (address) is offered as a status filter. */
  allowlist?: boolean;
  /** A ready curl command that sends a test delivery (lib/domain/webhooks/test-request.ts), when one can be offered. */
  testRequest: string | null;
};

function href(path: string, params: Record<string, string | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const query = search.toString();
  return `${query ? `${path}?${query}` : path}#deliveries`;
}

/** The bulk replay page with the log's search and event filter as its selection (the status is always Accepted there). */
function replayHref(path: string, params: { q: string; event: string | null }): string {
  const search = new URLSearchParams();
  if (params.q) search.set('q', params.q);
  if (params.event) search.set('event', params.event);
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

function NoDeliveriesYet({ webhook }: { webhook: DeliveryLogWebhook }) {
  const curl = webhook.testRequest;
  return (
    <EmptyState
      icon={<InboxIcon />}
      title="No deliveries yet"
      description={
        curl
          ? 'Every request that reaches this webhook is listed here within seconds. Send a test request to see one.'
          : `Every request that reaches this webhook is listed here within seconds${webhook.providerName ? `, from ${webhook.providerName}’s first event on` : ''}.`
      }
    >
      {curl ? (
        <div className="mt-5 w-full max-w-2xl text-left">
          <CodeBlock title="Send a test request" language="bash" code={curl} />
          <p className="mt-2 text-[13px] text-fg-muted">
            {webhook.authMode === 'signature' ? (
              <>Signed with the webhook’s secret just now; this page signs it again every few seconds while it waits (a signature is valid for 5 minutes).</>
            ) : webhook.authMode === 'token' ? (
              <>
                Replace <code className="font-mono text-[12px] text-fg">{'<secret>'}</code> with the webhook’s secret, shown once when it was created.
              </>
            ) : (
              <>
                Replace <code className="font-mono text-[12px] text-fg">{'{token}'}</code> with the webhook’s secret, shown once when it was created.
              </>
            )}
          </p>
        </div>
      ) : null}
    </EmptyState>
  );
}

/** The delivery log of one webhook: filters, the newest-first table and keyset pages. */
export function DeliveriesCard({
  view,
  webhook,
  entryPath,
  retention,
  replayPath = null,
}: {
  view: DeliveryLogView;
  webhook: DeliveryLogWebhook;
  /** Path of an entry's page, from its row id. */
  entryPath: (id: string) => string;
  retention: { days: number; entries: number };
  /** Admins: the bulk replay page, which the log's search and event filter are carried to as its selection. */
  replayPath?: string | null;
}) {
  const { page, status, q, event, eventTypes, cursor, now, searchProblem = null } = view;
  const filtered = Boolean(status || q || event);
  const rows = page?.deliveries ?? [];
  // The event type column and filter appear once the webhook has seen a type.
  const typed = eventTypes.length > 0 || event !== null || rows.some((delivery) => delivery.eventType !== null);
  const neverReceived = page !== null && rows.length === 0 && !filtered && !cursor;
  // Only the first page follows new deliveries: an older page would shift under the reader. A search
  // of payloads is not repeated every few seconds either: each one may read the database for seconds.
  const live = !cursor && !(q && searchesPayloads(q));
  const first = href(view.path, { status, q, event });
  const columns = typed ? 6 : 5;

  return (
    <Card id="deliveries" role="region" aria-label="Deliveries" className="scroll-mt-6">
      <CardHeader
        title="Deliveries"
        description={`Every request that reached this webhook, newest first. Kept for ${retention.days} days, and at least the latest ${retention.entries}.`}
        actions={live ? <AutoRefresh /> : null}
      />
      {neverReceived ? (
        <NoDeliveriesYet webhook={webhook} />
      ) : (
        <>
          <div className="border-b border-line px-5 py-3">
            <div className="flex flex-wrap items-start justify-between gap-3">
              <DeliveryFilters status={status} q={q} event={event} eventTypes={typed ? eventTypes : null} handshakes={webhook.handshakes === true || status === 'handshake'} allowlist={webhook.allowlist === true || status === 'refused_address'} searchProblemId={searchProblem ? SEARCH_PROBLEM_ID : null} />
              {replayPath ? (
                <ButtonLink href={replayHref(replayPath, { q, event })} variant="secondary" size="sm" className="shrink-0">
                  {filtered ? 'Replay these…' : 'Replay many…'}
                </ButtonLink>
              ) : null}
            </div>
            {searchProblem ? (
              <p id={SEARCH_PROBLEM_ID} role="alert" className="mt-2 text-[13px] leading-5 text-red-700">
                {searchProblem}
              </p>
            ) : q && !searchesPayloads(q) ? (
              <p className="mt-2 text-sm text-fg-muted">
                Matched against delivery IDs only: payloads are searched for text with at least 3 letters or digits in a row.
              </p>
            ) : null}
          </div>
          {searchProblem ? null : page === null ? (
            <div className="px-5 py-5">
              <Alert
                tone="warning"
                title="This page of the log is no longer available"
                actions={
                  <ButtonLink href={first} variant="secondary" size="sm">
                    Go to the newest deliveries
                  </ButtonLink>
                }
              >
                The link to it is not valid. Start again from the newest deliveries.
              </Alert>
            </div>
          ) : (
            <DataTable
              columns={[
                { header: 'Status', className: 'w-52' },
                { header: 'Delivery ID' },
                ...(typed ? [{ header: 'Event type', className: 'w-56' }] : []),
                { header: 'Size', className: 'w-24', numeric: true },
                { header: 'Received', className: 'w-56' },
                { header: 'Actions', className: 'w-20', hidden: true },
              ]}
            >
              {rows.length === 0 ? (
                cursor && !filtered ? (
                  <TableEmpty colSpan={columns} title="No older deliveries" description="This is the end of the log.">
                    <ButtonLink href={first} variant="secondary" size="sm">
                      Newest deliveries
                    </ButtonLink>
                  </TableEmpty>
                ) : (
                  <TableEmpty
                    colSpan={columns}
                    title={cursor ? 'No older deliveries match' : 'No deliveries match'}
                    description={
                      q
                        ? `No delivery ID${searchesPayloads(q) ? ' or payload' : ''} matches “${q}”${status ? ` among ${deliveryStatusLabels[status]} deliveries` : ''}${event ? ` of event type ${event}` : ''}.`
                        : event
                          ? `No delivery in the log${status ? ` that is ${deliveryStatusLabels[status]}` : ''} has event type ${event}.`
                          : `No delivery in the log is ${status ? deliveryStatusLabels[status] : 'listed'}.`
                    }
                  >
                    <ButtonLink href={href(view.path, {})} variant="secondary" size="sm">
                      Clear filters
                    </ButtonLink>
                  </TableEmpty>
                )
              ) : (
                rows.map((delivery) => (
                  <TR key={delivery.id} data-delivery-id={delivery.deliveryId}>
                    <TD className="py-3">
                      <div className="flex flex-wrap items-center gap-1.5">
                        <DeliveryStatusBadge status={delivery.status} />
                        <RecoveredBadge origin={delivery.origin} provider={webhook.providerName} />
                      </div>
                    </TD>
                    <TD className="max-w-0 py-3">
                      <span title={delivery.deliveryId} className="block truncate font-mono text-[13px] text-fg">
                        {delivery.deliveryId}
                      </span>
                      {/* Rejections say why; an Accepted entry has a detail only when the run queue was full. */}
                      {delivery.detail ? (
                        <span className="block truncate text-xs text-fg-subtle" title={sentence(delivery.detail)}>
                          {sentence(delivery.detail)}
                        </span>
                      ) : null}
                    </TD>
                    {typed ? (
                      <TD label="Event type" className="max-w-0 py-3">
                        {delivery.eventType ? (
                          <span title={delivery.eventType} className="block truncate font-mono text-[13px] text-fg">
                            {delivery.eventType}
                          </span>
                        ) : (
                          <span className="text-fg-subtle">—</span>
                        )}
                      </TD>
                    ) : null}
                    <TD numeric label="Size" className="py-3 whitespace-nowrap text-fg-muted">
                      {delivery.status === 'refused' ? (
                        <span className="text-fg-subtle">—</span>
                      ) : (
                        <span title={formatExactBytes(delivery.size)}>{formatBytes(delivery.size)}</span>
                      )}
                    </TD>
                    <TD label="Received" className="py-3">
                      <Timestamp at={delivery.receivedAt} now={now} />
                    </TD>
                    <TD className="py-3 text-right">
                      <Link
                        href={entryPath(delivery.id)}
                        className="rounded-sm font-medium whitespace-nowrap text-accent-700 hover:text-accent-800 hover:underline hover:underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
                      >
                        View<span className="sr-only"> delivery {delivery.deliveryId}</span>
                      </Link>
                    </TD>
                  </TR>
                ))
              )}
            </DataTable>
          )}
          {page && (cursor || page.nextCursor) ? (
            <CardFooter align="between">
              <p className="text-[13px] text-fg-muted">
                {rows.length === 0
                  ? null
                  : cursor
                    ? `Showing ${rows.length} older ${rows.length === 1 ? 'delivery' : 'deliveries'}`
                    : `Showing the ${rows.length} newest deliveries`}
              </p>
              <Pager
                label="Delivery pages"
                first={cursor ? { href: first, text: 'Newest' } : null}
                next={page.nextCursor ? { href: href(view.path, { status, q, event, cursor: page.nextCursor }), text: 'Older' } : null}
              />
            </CardFooter>
          ) : null}
        </>
      )}
    </Card>
  );
}
