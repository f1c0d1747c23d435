import 'server-only';
import { prisma, type DbOrTx as Db } from '@/lib/platform/db';
import {
  HEALTH_WINDOW_MS,
  classifyHealth,
  deliveryStatuses,
  emptyCounts,
  type DeliveryStatusName,
  type Health,
  type StatusCounts,
} from '@/lib/domain/health/classify';
import { healthNow } from '@/lib/domain/health/clock';
import { deliveryStatusLabels } from '@/lib/domain/deliveries/schemas';
import { floorMinute, rollupsUntil } from '@/lib/domain/health/rollups';

// Health and delivery statistics, read from the per-minute rollups for the
// minutes they cover and from the log itself for the few minutes since the
// last rollup run (so what a person just sent shows at once). Every query is
// an index range per webhook: the cost does not grow with the retained log
// (bench/health.mjs, docs/benchmarks.md).

export type HealthWebhook = { id: string; createdAt: Date; expectedIntervalSeconds: number | null };


type CountRow = { webhookId: string; status: DeliveryStatusName; bucket: Date; count: number };

/**
 * Where counts switch from the rollup tables to the log: the rollup watermark,
 * when it is past `from`. A stale or missing watermark means the log answers alone.
 */
async function rollupSplit(db: Db, from: Date): Promise<Date> {
  const until = await rollupsUntil(db);
  return until && until > from ? until : from;
}

/**
 * One count query over time, answered by a rollup table before `split` and by
 * the log from it. `rolled` takes ($1 key, $2 from, $3 split), `live` ($1 key, $2 split).
 */
async function rollupsThenLog<T>(db: Db, sql: { rolled: string; live: string }, key: unknown, from: Date, split: Date): Promise<T[]> {
  const [rolled, live] = await Promise.all([
    split > from ? db.$queryRawUnsafe<T[]>(sql.rolled, key, from, split) : Promise.resolve([]),
    db.$queryRawUnsafe<T[]>(sql.live, key, split),
  ]);
  return [...rolled, ...live];
}

/**
 * Requests per webhook, status and bucket (date_trunc unit) from `from` to now, for `webhookIds`, or
 * for every webhook when null: the health job asks for all of them, and a list of 20,000 ids cost the
 * index more to walk than the window's rows (60-85 ms against a few).
 */
async function countsSince(db: Db, webhookIds: string[] | null, from: Date, unit: 'minute' | 'hour', split?: Date): Promise<CountRow[]> {
  if (webhookIds?.length === 0) return [];
  const only = (column: string) => (webhookIds ? `${column} = ANY($1::text[]) AND` : '$1::text[] IS NULL AND');
  const sql = {
    rolled: `SELECT "webhookId", "status"::text AS "status", date_trunc('${unit}', "minute") AS "bucket", sum("count")::int AS "count"
             FROM "DeliveryRollup"
             WHERE ${only('"webhookId"')} "minute" >= $2 AND "minute" < $3
             GROUP BY 1, 2, 3`,
    live: `SELECT "webhookId", "status"::text AS "status", date_trunc('${unit}', "receivedAt") AS "bucket",
                  sum(CASE WHEN "status" = 'refused' THEN coalesce("refusedCount", 1) ELSE 1 END)::int AS "count"
           FROM "Delivery"
           WHERE ${only('"webhookId"')} "receivedAt" >= $2
           GROUP BY 1, 2, 3`,
  };
  return rollupsThenLog<CountRow>(db, sql, webhookIds, from, split ?? (await rollupSplit(db, from)));
}

type LastRow = { id: string; lastAcceptedAt: Date | null; lastDeliveryAt: Date | null; rateLimitedAt: Date | null };

/**
 * Per webhook: the newest entry, the last accepted delivery, and when the rate limit was last seen
 * spent. One index lookup for the newest entry; a second for the last accepted one only when the
 * newest is not accepted (most webhooks' newest entry is, and one that never received anything
 * needs none).
 */
async function lastTimes(db: Db, webhookIds: string[]): Promise<Map<string, LastRow>> {
  const rows = await db.$queryRawUnsafe<LastRow[]>(
    `SELECT w.id,
            CASE WHEN n."status" IS NULL THEN NULL
                 WHEN n."status" = 'accepted' THEN n."receivedAt"
                 ELSE (SELECT d."receivedAt" FROM "Delivery" d WHERE d."webhookId" = w.id AND d."status" = 'accepted' ORDER BY d."receivedAt" DESC LIMIT 1)
            END AS "lastAcceptedAt",
            n."receivedAt" AS "lastDeliveryAt",
            h."rateLimitedAt"
     FROM unnest($1::text[]) AS w(id)
     LEFT JOIN LATERAL (SELECT d."receivedAt", d."status" FROM "Delivery" d WHERE d."webhookId" = w.id ORDER BY d."receivedAt" DESC, d."id" DESC LIMIT 1) n ON true
     LEFT JOIN "WebhookHealth" h ON h."webhookId" = w.id`,
    webhookIds,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export type WebhookHealthView = Health & { lastDeliveryAt: Date | null; recent: StatusCounts };

/**
 * The health of each webhook, keyed by its row id. `options.all` says the list holds every webhook
 * that matters (the health job's pass): the window's counts are then read for all webhooks at once.
 */
export async function healthOf(webhooks: HealthWebhook[], db: Db = prisma, now?: Date, options: { all?: boolean } = {}): Promise<Map<string, WebhookHealthView>> {
  const at = now ?? (await healthNow(db));
  const ids = webhooks.map((w) => w.id);
  const windowStart = new Date(floorMinute(at.getTime() - HEALTH_WINDOW_MS));
  const [counts, last] = await Promise.all([countsSince(db, options.all ? null : ids, windowStart, 'minute'), lastTimes(db, ids)]);
  const recent = new Map(ids.map((id) => [id, emptyCounts()]));
  for (const row of counts) {
    // Entries stamped after `at` (a test clock set in the past) do not count; nor webhooks not asked for.
    const counted = recent.get(row.webhookId);
    if (!counted || row.bucket.getTime() > at.getTime()) continue;
    counted[row.status] += row.count;
  }
  const result = new Map<string, WebhookHealthView>();
  for (const webhook of webhooks) {
    const times = last.get(webhook.id);
    const counts = recent.get(webhook.id)!;
    const health = classifyHealth({
      now: at,
      createdAt: webhook.createdAt,
      expectedIntervalSeconds: webhook.expectedIntervalSeconds,
      recent: counts,
      rateLimitedAt: times?.rateLimitedAt ?? null,
      lastAcceptedAt: times?.lastAcceptedAt ?? null,
      lastDeliveryAt: times?.lastDeliveryAt ?? null,
    });
    result.set(webhook.id, { ...health, lastDeliveryAt: times?.lastDeliveryAt ?? null, recent: counts });
  }
  return result;
}

export const statsWindows = {
  '24h': { label: 'Last 24 hours', spanMs: 24 * 3_600_000, bucketMs: 3_600_000 },
  '7d': { label: 'Last 7 days', spanMs: 7 * 24 * 3_600_000, bucketMs: 6 * 3_600_000 },
} as const;
export type StatsWindow = keyof typeof statsWindows;

/** The chart by event type draws this many types; the rest are summed as "other". */
export const CHART_TYPE_SERIES = 8;
/** Types listed with their totals; past it the list says it is truncated. */
export const LISTED_EVENT_TYPES = 50;

export type DeliveryStats = {
  window: StatsWindow;
  from: Date;
  to: Date;
  bucketSeconds: number;
  totals: StatusCounts;
  /** Accepted deliveries per event type over the window, most first ('' for deliveries without a type), at most 50. */
  eventTypes: { type: string; count: number }[];
  /** More types were seen than are listed. */
  eventTypesTruncated: boolean;
  /** The chart's series: the 8 most frequent types of the window ('' for none). */
  typeSeries: string[];
  /** `types[i]` counts typeSeries[i]; `otherTypes` the accepted deliveries of every other type. */
  buckets: { start: Date; counts: StatusCounts; types: number[]; otherTypes: number }[];
};

type TypeRow = { type: string; bucket: Date; count: number };

/** Accepted deliveries of one webhook per event type ('' for none) and hour from `from` to now. */
function typeCountsSince(db: Db, webhookId: string, from: Date, split: Date): Promise<TypeRow[]> {
  const sql = {
    rolled: `SELECT "eventType" AS "type", date_trunc('hour', "minute") AS "bucket", sum("count")::int AS "count"
             FROM "DeliveryTypeRollup"
             WHERE "webhookId" = $1 AND "minute" >= $2 AND "minute" < $3
             GROUP BY 1, 2`,
    live: `SELECT coalesce("eventType", '') AS "type", date_trunc('hour', "receivedAt") AS "bucket", count(*)::int AS "count"
           FROM "Delivery"
           WHERE "webhookId" = $1 AND "receivedAt" >= $2 AND "status" = 'accepted'
           GROUP BY 1, 2`,
  };
  return rollupsThenLog<TypeRow>(db, sql, webhookId, from, split);
}

/** Requests per status over the window, in buckets of an hour (24h) or six hours (7d), the last bucket ending with the current hour. */
export async function deliveryStats(webhookId: string, window: StatsWindow, db: Db = prisma, now?: Date): Promise<DeliveryStats> {
  const at = now ?? (await healthNow(db));
  const { spanMs, bucketMs } = statsWindows[window];
  // Buckets are aligned to whole hours (UTC) so the same hour is one bar in both charts.
  const end = Math.floor(at.getTime() / 3_600_000) * 3_600_000 + 3_600_000;
  const alignedEnd = Math.ceil(end / bucketMs) * bucketMs;
  const from = alignedEnd - spanMs;
  // One watermark for both queries, so the two charts split at the same minute.
  const split = await rollupSplit(db, new Date(from));
  const [statusRows, typeRows] = await Promise.all([
    countsSince(db, [webhookId], new Date(from), 'hour', split),
    typeCountsSince(db, webhookId, new Date(from), split),
  ]);
  const bucketOf = (at: Date) => Math.floor((at.getTime() - from) / bucketMs);
  const totals = emptyCounts();
  const typeTotals = new Map<string, number>();
  for (const row of typeRows) {
    if (bucketOf(row.bucket) >= 0 && bucketOf(row.bucket) < spanMs / bucketMs) typeTotals.set(row.type, (typeTotals.get(row.type) ?? 0) + row.count);
  }
  const ranked = [...typeTotals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const typeSeries = ranked.slice(0, CHART_TYPE_SERIES).map(([type]) => type);
  const seriesIndex = new Map(typeSeries.map((type, index) => [type, index]));
  const buckets = Array.from({ length: spanMs / bucketMs }, (_, i) => ({
    start: new Date(from + i * bucketMs),
    counts: emptyCounts(),
    types: typeSeries.map(() => 0),
    otherTypes: 0,
  }));
  for (const row of statusRows) {
    const bucket = buckets[bucketOf(row.bucket)];
    if (!bucket) continue;
    bucket.counts[row.status] += row.count;
    totals[row.status] += row.count;
  }
  for (const row of typeRows) {
    const bucket = buckets[bucketOf(row.bucket)];
    if (!bucket) continue;
    const index = seriesIndex.get(row.type);
    if (index === undefined) bucket.otherTypes += row.count;
    else bucket.types[index]! += row.count;
  }
  return {
    window,
    from: new Date(from),
    to: at,
    bucketSeconds: bucketMs / 1000,
    totals,
    eventTypes: ranked.slice(0, LISTED_EVENT_TYPES).map(([type, count]) => ({ type, count })),
    eventTypesTruncated: ranked.length > LISTED_EVENT_TYPES,
    typeSeries,
    buckets,
  };
}

/** The log's own labels for each status. */
export const statusLabels = deliveryStatusLabels;

export { deliveryStatuses };
