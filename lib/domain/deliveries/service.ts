import 'server-only';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { listDeliveriesSchema, searchesPayloads, type DeliveryStatusFilter, type ListDeliveriesInput } from '@/lib/domain/deliveries/schemas';
import { eventTypesToSql } from '@/lib/ingress/filters/events';
import { AppError } from '@/lib/platform/http/errors';
import { localStatementTimeout } from '@/lib/platform/db/sql';
import { isStatementTimeout } from '@/lib/platform/db/unavailable';
import { decodeTimeCursor, keysetPage } from '@/lib/platform/time-cursor';

// The delivery log of one webhook: newest first, filtered by status,
// searched by delivery ID or body text, paged with an opaque keyset cursor
// (receivedAt, id) that follows the (webhookId, receivedAt DESC, id DESC)
// index, so page 1,000 costs what page 1 costs.

export type DeliverySummary = {
  id: string;
  deliveryId: string;
  status: DeliveryStatusFilter;
  size: number;
  receivedAt: Date;
  detail: string | null;
  /** What kind of event the sender says this is (`pull_request.opened`); null when it names none. */
  eventType: string | null;
  /** Refused summaries only: how many requests their minute refused. */
  refusedCount: number | null;
  /**
   * How the entry reached the log when not live from its sender:
   * `provider_redelivery` (the sender sent it again, as a recovery pass asked
   * or someone did by hand: lib/domain/connections/recover.ts);
   * `stripe_import` (a recovery pass fetched the event from Stripe's API and
   * recorded it: lib/domain/connections/import.ts); null: live.
   */
  origin: string | null;
};

export type DeliveryDetail = DeliverySummary & {
  identitySource: string;
  remoteAddress: string | null;
  /**
   * Accepted entries only: the body exactly as received. Never parsed here:
   * callers serve or render the text (a value nested thousands of levels deep
   * is valid and cannot be serialised again).
   */
  body: string | null;
  headers: Record<string, string> | null;
  /** The last replay against the automations of the day, if any. */
  replay: { count: number; lastAt: Date; lastBy: string | null } | null;
};

export async function webhookIdOrThrow(db: DbOrTx, factoryId: string, uid: string): Promise<string> {
  // Deleted webhooks keep their history but are not browsable here.
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid, deletedAt: null }, select: { id: true } });
  if (!webhook) throw new AppError('not_found', 'Webhook not found');
  return webhook.id;
}

const summary = { id: true, deliveryId: true, status: true, size: true, receivedAt: true, detail: true, eventType: true, refusedCount: true, origin: true } as const;

/** What the log can be filtered by: the dashboard's and the API's filters, and a bulk replay's selection (lib/domain/replay-jobs). */
export type LogFilter = { status?: DeliveryStatusFilter; event?: string; q?: string; from?: Date; to?: Date };

/**
 * The log's filters as one statement over a webhook's entries, newest first:
 * `columns` of the rows that match `filter` and every extra condition, at
 * most `limit` of them. The one place the log's filters become SQL, so the
 * log and a bulk replay's selection read the same entries.
 */
export function deliveryLogQuery(
  webhookId: string,
  filter: LogFilter,
  options: { columns: string; limit: number; extra?: (params: unknown[]) => string[] },
): { sql: string; params: unknown[]; searchesBodies: boolean } {
  const { status, event, q, from, to } = filter;
  // Plain SQL for the row-value comparison ("receivedAt", "id") < (...),
  // which PostgreSQL answers straight from the (webhookId, receivedAt, id)
  // index however deep the page is.
  const params: unknown[] = [webhookId];
  const where = ['"webhookId" = $1'];
  if (status) {
    params.push(status);
    where.push(`"status" = $${params.length}::"DeliveryStatus"`);
  }
  if (event) {
    // An exact type is an equality the (webhookId, eventType, receivedAt) index answers; a pattern
    // with `*` segments is the triggers' own rule as SQL, over the newest entries in order.
    if (event.includes('*')) where.push(eventTypesToSql([event], '"eventType"', params));
    else {
      params.push(event);
      where.push(`"eventType" = $${params.length}`);
    }
  }
  if (from) {
    params.push(from);
    where.push(`"receivedAt" >= $${params.length}`);
  }
  if (to) {
    params.push(to);
    where.push(`"receivedAt" < $${params.length}`);
  }
  where.push(...(options.extra?.(params) ?? []));
  params.push(options.limit);
  const limitParam = `$${params.length}`;
  const select = (conditions: string[]) =>
    `SELECT ${options.columns}
       FROM "Delivery" WHERE ${[...where, ...conditions].join(' AND ')}
      ORDER BY "receivedAt" DESC, "id" DESC LIMIT ${limitParam}`;
  let sql = select([]);
  if (q) {
    // A match on the delivery ID or anywhere in the body (case-insensitive
    // substring). Two branches, not an OR, so that each has its own plan: the
    // ID from the (webhookId, deliveryId) index, the body from the trigram
    // index on (webhookId, body) (Delivery_search_trgm_idx) or, for text in
    // most bodies, the newest entries in order until the page is full. Text
    // without three letters or digits in a row has no trigram to look up:
    // its body branch would read the webhook's whole log (half a minute at
    // the limits), so it matches delivery IDs only (searchesPayloads).
    params.push(q);
    const byId = select([`"deliveryId" = $${params.length}`]);
    if (searchesPayloads(q)) {
      params.push(`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      sql = `SELECT * FROM ((${byId}) UNION (${select([`"body" ILIKE $${params.length}`])})) AS matches
        ORDER BY "receivedAt" DESC, "id" DESC LIMIT ${limitParam}`;
    } else {
      sql = byId;
    }
  }
  return { sql, params, searchesBodies: Boolean(q && searchesPayloads(q)) };
}

/**
 * How long a search of the log's bodies may read. Text in no body, made of words that are in many
 * (`id type`), finds every body through the trigram index and reads them all: over a webhook's
 * whole log, minutes of the database's time for one request any viewer can repeat.
 */
export const logSearchLimits = { timeoutMs: 10_000 };

/** Runs a deliveryLogQuery: a search of bodies under its time limit, refused past it with what to do instead. */
export async function runLogQuery<T>(db: DbOrTx, query: { sql: string; params: unknown[]; searchesBodies: boolean }): Promise<T[]> {
  // A transaction's own client (no $transaction) runs it as it is: SET LOCAL would outlast the query there.
  const client = db as Partial<Pick<Db, '$transaction'>>;
  if (!query.searchesBodies || typeof client.$transaction !== 'function') return db.$queryRawUnsafe<T[]>(query.sql, ...query.params);
  try {
    return await (db as Db).$transaction(async (tx) => {
      await tx.$executeRawUnsafe(localStatementTimeout(logSearchLimits.timeoutMs));
      return tx.$queryRawUnsafe<T[]>(query.sql, ...query.params);
    }, { timeout: logSearchLimits.timeoutMs + 5_000, maxWait: 5_000 });
  } catch (error) {
    if (!isStatementTimeout(error)) throw error;
    const seconds = Math.round(logSearchLimits.timeoutMs / 1000);
    throw new AppError('validation_failed', `The search of payloads read for ${seconds} s without finishing`, {
      q: `This text is in too few payloads to find within ${seconds} s: narrow the search with a time range (from, to), a status or an event type, or search for a delivery ID`,
    });
  }
}

export async function listDeliveries(
  factoryId: string,
  uid: string,
  input: ListDeliveriesInput,
  db: DbOrTx = prisma,
): Promise<{ deliveries: DeliverySummary[]; nextCursor: string | null }> {
  const { status, limit, cursor, q, event } = listDeliveriesSchema.parse(input);
  const webhookId = await webhookIdOrThrow(db, factoryId, uid);
  const query = deliveryLogQuery(
    webhookId,
    { status, q, event },
    {
      columns: `"id", "deliveryId", "status"::text AS "status", "size", "receivedAt", "detail", "eventType", "refusedCount", "origin"`,
      limit: limit + 1,
      extra: (params) => {
        if (!cursor) return [];
        const c = decodeTimeCursor(cursor);
        params.push(c.at, c.id);
        return [`("receivedAt", "id") < ($${params.length - 1}, $${params.length})`];
      },
    },
  );
  const { page, nextCursor } = keysetPage(await runLogQuery<DeliverySummary>(db, query), limit, (row) => ({ at: row.receivedAt, id: row.id }));
  return { deliveries: page, nextCursor };
}

/** How many of the newest entries `recentEventTypes` looks at: a bounded read, whatever the log's size. */
export const RECENT_TYPES_WINDOW = 1_000;

/**
 * The event types among a webhook's newest 1,000 log entries, most frequent
 * first (at most 50): what the log's event filter offers. Entries of every
 * status count, so the filter can find rejected deliveries of a type too; the
 * automation editor's completion uses the field catalogue's types instead,
 * from the accepted deliveries a trigger could match (lib/domain/fields). Reads the newest
 * entries through the (webhookId, receivedAt, id) index, so it costs the
 * same on any log.
 */
export async function recentEventTypes(factoryId: string, uid: string, db: DbOrTx = prisma): Promise<{ type: string; count: number }[]> {
  const webhookId = await webhookIdOrThrow(db, factoryId, uid);
  const rows = await db.$queryRawUnsafe<{ type: string; count: bigint | number }[]>(
    `SELECT "eventType" AS "type", count(*) AS "count"
       FROM (SELECT "eventType" FROM "Delivery" WHERE "webhookId" = $1 ORDER BY "receivedAt" DESC, "id" DESC LIMIT ${RECENT_TYPES_WINDOW}) AS newest
      WHERE "eventType" IS NOT NULL
      GROUP BY "eventType" ORDER BY count(*) DESC, "eventType" LIMIT 50`,
    webhookId,
  );
  return rows.map((row) => ({ type: row.type, count: Number(row.count) }));
}

export async function getDelivery(factoryId: string, uid: string, id: string, db: DbOrTx = prisma): Promise<DeliveryDetail> {
  const webhookId = await webhookIdOrThrow(db, factoryId, uid);
  const row = await db.delivery.findFirst({
    where: { id, webhookId },
    select: { ...summary, identitySource: true, remoteAddress: true, body: true, headers: true, replayCount: true, replayedAt: true, replayedBy: true },
  });
  if (!row) throw new AppError('not_found', 'Delivery not found');
  const keepsPayload = row.status === 'accepted' && row.body !== null;
  const { replayCount, replayedAt, replayedBy, ...rest } = row;
  return {
    ...rest,
    replay: replayedAt ? { count: replayCount, lastAt: replayedAt, lastBy: replayedBy } : null,
    body: keepsPayload ? row.body : null,
    headers: keepsPayload ? (row.headers as Record<string, string> | null) : null,
  };
}

export function deliveryJson(delivery: DeliverySummary) {
  return {
    id: delivery.id,
    deliveryId: delivery.deliveryId,
    status: delivery.status,
    size: delivery.size,
    receivedAt: delivery.receivedAt.toISOString(),
    detail: delivery.detail,
    eventType: delivery.eventType,
    ...(delivery.status === 'refused' ? { refusedCount: delivery.refusedCount ?? 0 } : {}),
    ...(delivery.origin ? { origin: delivery.origin } : {}),
  };
}
