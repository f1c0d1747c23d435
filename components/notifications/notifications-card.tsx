import { CreateDestinationForm } from '@/components/notifications/create-destination-form';
import { DestinationActions } from '@/components/notifications/destination-actions';
import { preciseDateTimeFormat } from '@/components/format';
import { Badge } from '@/components/ui/badge';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { DataTable, TD, TR } from '@/components/ui/table';
import { notificationKindLabels } from '@/lib/domain/notifications/schemas';
import type { DestinationView, NotificationLogEntry } from '@/lib/domain/notifications/service';

const statusTone = { sent: 'success', pending: 'warning', failed: 'danger' } as const;
const statusLabel = { sent: 'Sent', pending: 'Pending', failed: 'Failed' } as const;

/** The factory's notification destinations, a form to add one, and the log of sent notifications (admins). */
export function NotificationsCard({ factorySlug, destinations, log }: { factorySlug: string; destinations: DestinationView[]; log: NotificationLogEntry[] }) {
  return (
    <>
      <Card>
        <CardHeader
          title="Notifications"
          description="Where this factory’s events go: a webhook fails authentication, is rate limited, goes silent or recovers, a secret is rotated, a run fails after its last attempt, definitions fail to apply. One notification when a condition starts, one when it ends."
        />
        {destinations.length > 0 ? (
          <ul className="divide-y divide-line border-b border-line" aria-label="Destinations">
            {destinations.map((destination) => (
              <li key={destination.id} className="flex flex-col gap-3 px-5 py-4 sm:flex-row sm:items-start sm:justify-between">
                <div className="min-w-0">
                  <p className="flex items-center gap-2 font-medium text-fg">
                    {destination.name}
                    {destination.enabled ? null : <Badge tone="neutral">Disabled</Badge>}
                  </p>
                  <p className="text-[13px] text-fg-muted">{notificationKindLabels[destination.kind]}</p>
                  <p className="mt-0.5 font-mono text-xs break-all text-fg-subtle">{destination.url}</p>
                </div>
                <DestinationActions factorySlug={factorySlug} id={destination.id} name={destination.name} enabled={destination.enabled} />
              </li>
            ))}
          </ul>
        ) : null}
        <CardBody>
          <CreateDestinationForm factorySlug={factorySlug} />
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Sent notifications" description="The newest 50, with their outcome. Failures are retried with backoff (30 s, 1 min, 2 min, … up to 8 attempts)." />
        {log.length === 0 ? (
          <CardBody>
            <p className="text-fg-muted">No notification yet.</p>
          </CardBody>
        ) : (
          <DataTable aria-label="Sent notifications"
            columns={[
              { header: 'Event' },
              { header: 'Destination' },
              { header: 'Outcome' },
              { header: 'Queued' },
            ]}
          >
            {log.map((entry) => (
              <TR key={entry.id} data-event={entry.type}>
                <TD className="font-mono text-[13px]">{entry.type}</TD>
                <TD>{entry.destination}</TD>
                <TD>
                  <Badge tone={statusTone[entry.status]} dot>
                    {statusLabel[entry.status]}
                  </Badge>
                  <div className="mt-1 text-xs text-fg-muted">
                    {entry.status === 'sent'
                      ? `HTTP ${entry.responseStatus} after ${entry.attempts} attempt${entry.attempts === 1 ? '' : 's'}`
                      : (entry.lastError ?? 'Waiting to be sent')}
                  </div>
                </TD>
                <TD className="whitespace-nowrap text-fg-muted">{preciseDateTimeFormat.format(entry.createdAt)}</TD>
              </TR>
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}
