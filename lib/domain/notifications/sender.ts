import 'server-only';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { prisma, type Db } from '@/lib/platform/db';
import { decryptSecret } from '@/lib/platform/crypto/encryption';
import { log } from '@/lib/platform/log';
import { AppError } from '@/lib/platform/http/errors';
import { checkNotificationUrl, guardedLookup } from '@/lib/domain/notifications/address';
import { destinationContext, destinationTarget, type NotificationEvent } from '@/lib/domain/notifications/service';
import { slackMessage } from '@/lib/domain/notifications/slack';

// The notification sender, run by the housekeeping loop (never by a request).
// A batch of due notifications is claimed with FOR UPDATE SKIP LOCKED and a
// lease, so several instances on one PostgreSQL never send the same row at
// once; a sender that dies mid-send leaves the lease to expire and another
// sends it again (the webhook-id header stays the same, so a receiver can
// deduplicate). Failures are retried with exponential backoff.

export const MAX_ATTEMPTS = 8;
const BASE_DELAY_MS = 30_000;
const MAX_DELAY_MS = 60 * 60 * 1000;
const LEASE_MS = 60_000;
const TIMEOUT_MS = 10_000;
const BATCH = 20;
const logger = log('notifications');

/** 30 s, 1 min, 2 min, … capped at an hour. */
export const retryDelayMs = (attempt: number) => Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);

type Claimed = {
  id: string;
  eventId: string;
  attempts: number;
  payload: NotificationEvent;
  kind: 'standard_webhooks' | 'slack';
  url: string;
  urlEncrypted: string | null;
  secretEncrypted: string | null;
  destinationId: string;
};

async function claim(db: Db): Promise<Claimed[]> {
  // Only rows of enabled destinations are picked: a row of a disabled one (queued as it was being
  // disabled) would take a slot of every batch and never be sent, and 20 of them stop the outbox.
  return db.$queryRawUnsafe<Claimed[]>(
    `UPDATE "Notification" n SET "lockedUntil" = now() + ($1::int * interval '1 millisecond'), "attempts" = n."attempts" + 1
     FROM "NotificationDestination" d
     WHERE n."destinationId" = d."id" AND d."enabled" AND n."id" IN (
       SELECT x."id" FROM "Notification" x JOIN "NotificationDestination" e ON e."id" = x."destinationId" AND e."enabled"
       WHERE x."status" = 'pending' AND x."nextAttemptAt" <= now() AND (x."lockedUntil" IS NULL OR x."lockedUntil" < now())
       ORDER BY x."nextAttemptAt" LIMIT $2 FOR UPDATE OF x SKIP LOCKED)
     RETURNING n."id", n."eventId", n."attempts", n."payload", d."kind"::text AS "kind", d."url", d."urlEncrypted", d."secretEncrypted", d."id" AS "destinationId"`,
    LEASE_MS,
    BATCH,
  );
}

type Answer = { status: number } | { error: string };

/**
 * POSTs a notification: the answer is its status code, read as soon as the headers arrive (the body
 * is not read). `timeoutMs` bounds the whole request, headers included: the socket's own timeout is
 * an idle time that every byte resets, so a destination trickling a byte every few seconds would
 * hold the batch, and with it the housekeeping job, forever. No shared connection pool
 * (`agent: false`): a kept-alive connection opened under other address rules (a connection's, to
 * a private host) would be reused without guardedLookup.
 */
function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Answer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: guardedLookup, timeout: timeoutMs, agent: false },
      (response) => {
        clearTimeout(whole);
        resolve({ status: response.statusCode ?? 0 });
        response.destroy();
      },
    );
    const whole = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    request.on('error', (error) => {
      clearTimeout(whole);
      resolve({ error: error.message });
    });
    request.end(body);
  });
}

/** The request a destination gets for an event. */
export function notificationRequest(row: Pick<Claimed, 'eventId' | 'payload' | 'kind' | 'secretEncrypted' | 'destinationId'>, now = new Date()): { headers: Record<string, string>; body: string } {
  if (row.kind === 'slack') {
    return { headers: { 'content-type': 'application/json', 'user-agent': 'Tripline-Notifications/1' }, body: JSON.stringify(slackMessage(row.payload)) };
  }
  const body = JSON.stringify(row.payload);
  const secret = decryptSecret(row.secretEncrypted!, destinationContext(row.destinationId));
  const signature = new Webhook(secret).sign(row.eventId, now, body);
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Tripline-Notifications/1',
      'webhook-id': row.eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    },
    body,
  };
}

async function deliver(db: Db, row: Claimed, timeoutMs: number): Promise<void> {
  let answer: Answer;
  try {
    // The save-time check again, at every send: the operator's settings may
    // have changed, and an IP literal never reaches guardedLookup (Node makes
    // no DNS lookup for it).
    const target = destinationTarget({ id: row.destinationId, url: row.url, urlEncrypted: row.urlEncrypted });
    checkNotificationUrl(target);
    const { headers, body } = notificationRequest(row);
    answer = await post(target, headers, body, timeoutMs);
  } catch (error) {
    const fields = error instanceof AppError ? Object.values(error.fields ?? {}) : [];
    answer = { error: fields[0] ?? (error as Error).message };
  }
  const status = 'status' in answer ? answer.status : null;
  const ok = status !== null && status >= 200 && status < 300;
  const failure = 'status' in answer ? `HTTP ${answer.status}` : answer.error.slice(0, 300);
  const last = row.attempts >= MAX_ATTEMPTS;
  // Only the attempt this sender claimed: a destination disabled meanwhile has marked the row failed,
  // and another instance that claimed it after an expired lease counted another attempt.
  const { count } = await db.notification.updateMany({
    where: { id: row.id, status: 'pending', attempts: row.attempts },
    data: ok
      ? { status: 'sent', sentAt: new Date(), lockedUntil: null, responseStatus: status, lastError: null }
      : {
          status: last ? 'failed' : 'pending',
          lockedUntil: null,
          responseStatus: status,
          lastError: last ? `${failure} (attempt ${row.attempts} of ${MAX_ATTEMPTS}; no attempts left)` : `${failure} (attempt ${row.attempts} of ${MAX_ATTEMPTS}; retrying)`,
          nextAttemptAt: new Date(Date.now() + retryDelayMs(row.attempts)),
        },
  });
  if (!ok && count > 0) logger.warn({ notification: row.id, attempt: row.attempts, error: failure }, 'notification not delivered');
}

/** Sends every due notification (in batches); returns how many were attempted. `timeoutMs` bounds each request. */
export async function sendDueNotifications(db: Db = prisma, timeoutMs = TIMEOUT_MS): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await claim(db);
    if (rows.length === 0) return total;
    await Promise.all(rows.map((row) => deliver(db, row, timeoutMs)));
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}
