import 'server-only';
import { randomBytes } from 'node:crypto';
import { prisma, type Db, type Tx } from '@/lib/platform/db';
import { decryptSecret, encryptSecret } from '@/lib/platform/crypto/encryption';
import { randomBase62 } from '@/lib/platform/crypto/random';
import { env } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import { checkNotificationUrl } from '@/lib/domain/notifications/address';
import {
  MAX_DESTINATIONS_PER_FACTORY,
  createDestinationSchema,
  type CreateDestinationInput,
  type NotificationEventType,
  type NotificationKind,
} from '@/lib/domain/notifications/schemas';

// Where a factory's notifications go, and the outbox they are sent from
// (lib/domain/notifications/sender.ts). An event is queued as one row per enabled
// destination, in the transaction of whatever caused it; nothing is sent
// from the request that caused it.

export const destinationContext = (id: string) => `notification-destination:${id}`;
/** The encryption context of a destination's URL where the URL is its credential (Slack's). */
export const destinationUrlContext = (id: string) => `notification-destination-url:${id}`;

export type DestinationView = { id: string; name: string; kind: NotificationKind; url: string; enabled: boolean; createdAt: Date };

const destinationSelect = { id: true, name: true, kind: true, url: true, urlEncrypted: true, enabled: true, createdAt: true } as const;

/**
 * Slack incoming-webhook URLs carry their credential in the path: only the origin and the start of
 * the path are shown. A stored URL that does not parse (written before URLs were checked as they
 * are now) shows none of itself: where its credential is cannot be told.
 */
export function displayUrl(kind: NotificationKind, url: string): string {
  if (kind !== 'slack') return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(not a valid URL)';
  }
  const path = parsed.pathname.split('/').slice(0, 3).join('/');
  return `${parsed.origin}${path}/…`;
}

/** A destination as lists and answers show it: a Slack URL stored before it was kept encrypted is cut here too (displayUrl). */
function toView(row: DestinationView & { urlEncrypted: string | null }): DestinationView {
  const { urlEncrypted, ...view } = row;
  return { ...view, url: urlEncrypted === null ? displayUrl(row.kind, row.url) : row.url };
}

/**
 * How a destination's URL is stored: where the URL is its credential (a Slack incoming webhook's
 * path is its token), only the part that may be shown stays readable and the whole URL is
 * encrypted like team secrets; otherwise the URL as it is.
 */
function storedUrl(id: string, kind: NotificationKind, url: string): { url: string; urlEncrypted: string | null } {
  return kind === 'slack' ? { url: displayUrl(kind, url), urlEncrypted: encryptSecret(url, destinationUrlContext(id)) } : { url, urlEncrypted: null };
}

/** The URL a destination's notifications are sent to. */
export function destinationTarget(row: { id: string; url: string; urlEncrypted: string | null }): string {
  return row.urlEncrypted === null ? row.url : decryptSecret(row.urlEncrypted, destinationUrlContext(row.id));
}

/**
 * Encrypts the Slack URLs stored in the clear before they were kept encrypted (at start, after the
 * migrations): returns how many it encrypted. Each row is changed only if it is still as read.
 */
export async function protectDestinationUrls(db: Db = prisma): Promise<number> {
  const rows = await db.notificationDestination.findMany({ where: { kind: 'slack', urlEncrypted: null }, select: { id: true, kind: true, url: true } });
  let protectedCount = 0;
  for (const row of rows) {
    const { count } = await db.notificationDestination.updateMany({ where: { id: row.id, url: row.url, urlEncrypted: null }, data: storedUrl(row.id, row.kind, row.url) });
    protectedCount += count;
  }
  return protectedCount;
}

export async function listDestinations(factoryId: string, db: Db = prisma): Promise<DestinationView[]> {
  const rows = await db.notificationDestination.findMany({ where: { factoryId }, select: destinationSelect, orderBy: { createdAt: 'asc' } });
  return rows.map(toView);
}

/** Creates a destination; a signed one gets a new secret, returned here only. */
export async function createDestination(factoryId: string, input: CreateDestinationInput, db: Db = prisma): Promise<{ destination: DestinationView; secret: string | null }> {
  const data = createDestinationSchema.parse(input);
  checkNotificationUrl(data.url);
  const secret = data.kind === 'standard_webhooks' ? `whsec_${randomBytes(32).toString('base64')}` : null;
  const row = await db.$transaction(async (tx) => {
    const count = await tx.notificationDestination.count({ where: { factoryId } });
    if (count >= MAX_DESTINATIONS_PER_FACTORY) throw new AppError('conflict', `A factory has at most ${MAX_DESTINATIONS_PER_FACTORY} notification destinations`);
    const id = `nd_${randomBase62(20)}`;
    return tx.notificationDestination.create({
      data: { id, factoryId, name: data.name, kind: data.kind, ...storedUrl(id, data.kind, data.url), secretEncrypted: secret ? encryptSecret(secret, destinationContext(id)) : null },
      select: destinationSelect,
    });
  });
  return { destination: toView(row), secret };
}

export async function deleteDestination(factoryId: string, id: string, db: Db = prisma): Promise<void> {
  const { count } = await db.notificationDestination.deleteMany({ where: { factoryId, id } });
  if (count === 0) throw new AppError('not_found', 'Notification destination not found');
}

/** Shown on a disabled destination's queued notifications, which are not sent. */
export const DISABLED_DESTINATION_ERROR = 'Not sent: the destination was disabled';

/**
 * Pauses or resumes a destination. A disabled one receives nothing: no event
 * is queued for it, and the notifications already queued are marked failed
 * (with DISABLED_DESTINATION_ERROR, so the log says why), not held back to
 * arrive late, out of their moment, when it is enabled again.
 */
export async function setDestinationEnabled(factoryId: string, id: string, enabled: boolean, db: Db = prisma): Promise<DestinationView> {
  const row = await db.$transaction(async (tx) => {
    const [updated] = await tx.notificationDestination.updateManyAndReturn({ where: { factoryId, id }, data: { enabled }, select: destinationSelect });
    if (!updated) throw new AppError('not_found', 'Notification destination not found');
    if (!enabled) {
      await tx.notification.updateMany({ where: { destinationId: id, status: 'pending' }, data: { status: 'failed', lastError: DISABLED_DESTINATION_ERROR, lockedUntil: null } });
    }
    return updated;
  });
  return toView(row);
}

/** The event as receivers get it: Standard Webhooks' {type, timestamp, data}. */
export type NotificationEvent = { type: NotificationEventType; timestamp: string; data: Record<string, unknown> };

/**
 * Queues an event for every enabled destination of the factory (or only `onlyDestinationId`).
 * Returns the event's id, or null when no destination took it.
 */
export async function enqueueEvent(
  db: Db | Tx,
  factoryId: string,
  type: NotificationEventType,
  data: Record<string, unknown>,
  onlyDestinationId?: string,
): Promise<string | null> {
  const eventId = `evt_${randomBase62(24)}`;
  const inserted = await insertEvents(db, [{ factoryId, type, data, eventId, destinationId: onlyDestinationId }]);
  return inserted > 0 ? eventId : null;
}

/**
 * Queues many events at once, each for every enabled destination of its factory: one statement,
 * however many (a burst of failed runs is announced in one, where one statement each outlasted the
 * check's transaction). Returns how many notifications it queued.
 */
export async function enqueueEvents(db: Db | Tx, events: { factoryId: string; type: NotificationEventType; data: Record<string, unknown> }[]): Promise<number> {
  return insertEvents(db, events.map((event) => ({ ...event, eventId: `evt_${randomBase62(24)}` })));
}

type QueuedEvent = { factoryId: string; type: NotificationEventType; data: Record<string, unknown>; eventId: string; destinationId?: string };

/** The one statement that queues events: a notification per event and enabled destination of its factory. */
async function insertEvents(db: Db | Tx, events: QueuedEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const timestamp = new Date().toISOString();
  const rows = events.map((event) => ({
    factoryId: event.factoryId,
    eventId: event.eventId,
    type: event.type,
    destinationId: event.destinationId ?? null,
    payload: JSON.stringify({ type: event.type, timestamp, data: event.data } satisfies NotificationEvent),
  }));
  return db.$executeRawUnsafe(
    `INSERT INTO "Notification" ("id", "factoryId", "destinationId", "eventId", "type", "payload")
     SELECT 'nt_' || md5(random()::text || d."id" || e."eventId"), d."factoryId", d."id", e."eventId", e."type", e."payload"::jsonb
       FROM json_to_recordset($1::json) AS e("factoryId" text, "eventId" text, "type" text, "destinationId" text, "payload" text)
       JOIN "NotificationDestination" d ON d."factoryId" = e."factoryId" AND d."enabled"
                                        AND (e."destinationId" IS NULL OR d."id" = e."destinationId")`,
    JSON.stringify(rows),
  );
}

export type NotificationLogEntry = {
  id: string;
  eventId: string;
  type: string;
  destination: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
  nextAttemptAt: Date;
};

/** The newest notifications of a factory, with their outcome. */
export async function listNotifications(factoryId: string, take = 50, db: Db = prisma): Promise<NotificationLogEntry[]> {
  const rows = await db.notification.findMany({
    where: { factoryId },
    orderBy: { createdAt: 'desc' },
    take,
    select: {
      id: true,
      eventId: true,
      type: true,
      status: true,
      attempts: true,
      responseStatus: true,
      lastError: true,
      createdAt: true,
      sentAt: true,
      nextAttemptAt: true,
      destination: { select: { name: true } },
    },
  });
  return rows.map(({ destination, ...row }) => ({ ...row, destination: destination.name }));
}

/** Queues a notification.test event for one destination and returns its event id. */
export async function sendTestNotification(factoryId: string, destinationId: string, factory: { slug: string; name: string }, db: Db = prisma): Promise<string> {
  const destination = await db.notificationDestination.findFirst({ where: { factoryId, id: destinationId }, select: { id: true, enabled: true } });
  if (!destination) throw new AppError('not_found', 'Notification destination not found');
  const eventId = await enqueueEvent(db, factoryId, 'notification.test', { factory: factoryRef(factory), message: 'This is a test notification from Tripline.' }, destination.id);
  if (!eventId) throw new AppError('conflict', 'This destination is disabled');
  return eventId;
}

export function factoryRef(factory: { slug: string; name: string }) {
  return { slug: factory.slug, name: factory.name, url: `${env().baseUrl}/f/${factory.slug}` };
}
