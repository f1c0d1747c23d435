import 'server-only';
import { prisma, type DbOrTx as Db } from '@/lib/db';
import {
  HEALTH_WINDOW_MS,
  classifyHealth,
  deliveryStatuses,
  emptyCounts,
  type DeliveryStatusName,
  type Health,
  type StatusCounts,
} from '@/lib/health/classify';
import { healthNow } from '@/lib/health/clock';
import { deliveryStatusLabels } from '@/lib/deliveries/schemas';
import { floorMinute, rollupsUntil } from '@/lib/health/rollups';

// Health and delivery statistics, read from the per-minute rollups for the
// minutes they cover and from the log itself for the few minutes since the
// last rollup run (so what a person just sent shows at once). Every query is
// an index range per webhook: the cost does not grow with the retained log
// (bench/health.mjs, docs/benchmarks.md).

export type HealthWebhook = { id: string; createdAt: Date; expectedIntervalSeconds: number | null };


type CountRow = { webhookId: string; status: DeliveryStatusName; bucket: Date; count: number };

/**
 * Requests per webhook, status and bucket (date_trunc unit) from `from` to
 * now: rollups before the rollup watermark, the log after it.
 */
async function countsSince(db: Db, webhookIds: string[], from: Date, unit: 'minute' | 'hour'): Promise<CountRow[]> {
  if (webhookIds.length === 0) return [];
  const until = await rollupsUntil(db);
  // Rollups are only used up to their watermark; a stale or missing watermark means the log answers alone.
  const split = until && until > from ? until : from;
  const [rolled, live] = await Promise.all([
    split > from
      ? db.$queryRawUnsafe<CountRow[]>(
          `SELECT "webhookId", "status"::text AS "status", date_trunc('${unit}', "minute") AS "bucket", sum("count")::int AS "count"
           FROM "DeliveryRollup"
           WHERE "webhookId" = ANY($1::text[]) AND "minute" >= $2 AND "minute" < $3
           GROUP BY 1, 2, 3`,
          webhookIds,
          from,
          split,
        )
      : Promise.resolve([]),
    db.$queryRawUnsafe<CountRow[]>(
      `SELECT "webhookId", "status"::text AS "status", date_trunc('${unit}', "receivedAt") AS "bucket",
              sum(CASE WHEN "status" = 'refused' THEN coalesce("refusedCount", 1) ELSE 1 END)::int AS "count"
       FROM "Delivery"
       WHERE "webhookId" = ANY($1::text[]) AND "receivedAt" >= $2
       GROUP BY 1, 2, 3`,
      webhookIds,
      split,
    ),
  ]);
  return [...rolled, ...live];
}

type LastRow = { id: string; lastAcceptedAt: Date | null; lastDeliveryAt: Date | null; rateLimitedAt: Date | null };

/** Per webhook: the last accepted delivery, the newest entry, and when the rate limit was last seen spent. Two index lookups each. */
async function lastTimes(db: Db, webhookIds: string[]): Promise<Map<string, LastRow>> {
  const rows = await db.$queryRawUnsafe<LastRow[]>(
    `SELECT w.id,
            (SELECT d."receivedAt" FROM "Delivery" d WHERE d."webhookId" = w.id AND d."status" = 'accepted' ORDER BY d."receivedAt" DESC LIMIT 1) AS "lastAcceptedAt",
            (SELECT d."receivedAt" FROM "Delivery" d WHERE d."webhookId" = w.id ORDER BY d."receivedAt" DESC, d."id" DESC LIMIT 1) AS "lastDeliveryAt",
            h."rateLimitedAt"
     FROM unnest($1::text[]) AS w(id)
     LEFT JOIN "WebhookHealth" h ON h."webhookId" = w.id`,
    webhookIds,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export type WebhookHealthView = Health & { lastDeliveryAt: Date | null; recent: StatusCounts };

/** The health of each webhook, keyed by its row id. */
export async function healthOf(webhooks: HealthWebhook[], db: Db = prisma, now?: Date): Promise<Map<string, WebhookHealthView>> {
  const at = now ?? (await healthNow(db));
  const ids = webhooks.map((w) => w.id);
  const windowStart = new Date(floorMinute(at.getTime() - HEALTH_WINDOW_MS));
  const [counts, last] = await Promise.all([countsSince(db, ids, windowStart, 'minute'), lastTimes(db, ids)]);
  const recent = new Map(ids.map((id) => [id, emptyCounts()]));
  for (const row of counts) {
    // Entries stamped after `at` (a test clock set in the past) do not count.
    if (row.bucket.getTime() > at.getTime()) continue;
    recent.get(row.webhookId)![row.status] += row.count;
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

export type DeliveryStats = {
  window: StatsWindow;
  from: Date;
  to: Date;
  bucketSeconds: number;
  totals: StatusCounts;
  buckets: { start: Date; counts: StatusCounts }[];
};

/** Requests per status over the window, in buckets of an hour (24h) or six hours (7d), the last bucket ending with the current hour. */
export async function deliveryStats(webhookId: string, window: StatsWindow, db: Db = prisma, now?: Date): Promise<DeliveryStats> {
  const at = now ?? (await healthNow(db));
  const { spanMs, bucketMs } = statsWindows[window];
  // Buckets are aligned to whole hours (UTC) so the same hour is one bar in both charts.
  const end = Math.floor(at.getTime() / 3_600_000) * 3_600_000 + 3_600_000;
  const alignedEnd = Math.ceil(end / bucketMs) * bucketMs;
  const from = alignedEnd - spanMs;
  const buckets = Array.from({ length: spanMs / bucketMs }, (_, i) => ({ start: new Date(from + i * bucketMs), counts: emptyCounts() }));
  const totals = emptyCounts();
  for (const row of await countsSince(db, [webhookId], new Date(from), 'hour')) {
    const index = Math.floor((row.bucket.getTime() - from) / bucketMs);
    const bucket = buckets[index];
    if (!bucket) continue;
    bucket.counts[row.status] += row.count;
    totals[row.status] += row.count;
  }
  return { window, from: new Date(from), to: at, bucketSeconds: bucketMs / 1000, totals, buckets };
}

/** The log's own labels for each status. */
export const statusLabels = deliveryStatusLabels;

export { deliveryStatuses };
