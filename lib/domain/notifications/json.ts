import type { DestinationView, NotificationLogEntry } from '@/lib/domain/notifications/service';

/** A destination as the API returns it: never its secret; a Slack URL only up to its credential. */
export function destinationJson(destination: DestinationView) {
  return { id: destination.id, name: destination.name, kind: destination.kind, url: destination.url, enabled: destination.enabled, createdAt: destination.createdAt.toISOString() };
}

export function notificationJson(entry: NotificationLogEntry) {
  return {
    id: entry.id,
    eventId: entry.eventId,
    type: entry.type,
    destination: entry.destination,
    status: entry.status,
    attempts: entry.attempts,
    responseStatus: entry.responseStatus,
    error: entry.lastError,
    createdAt: entry.createdAt.toISOString(),
    sentAt: entry.sentAt?.toISOString() ?? null,
    nextAttemptAt: entry.status === 'pending' ? entry.nextAttemptAt.toISOString() : null,
  };
}
