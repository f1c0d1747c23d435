import type { DeliveryStats } from '@/lib/domain/health/service';
import { healthJson } from '@/lib/domain/webhooks/json';
import type { WebhookView } from '@/lib/domain/webhooks/service';

/** GET .../webhooks/{uid}/stats: the webhook's health, its requests per status and its accepted deliveries per event type, in total and per bucket. */
export function statsJson(webhook: WebhookView, stats: DeliveryStats) {
  return {
    uid: webhook.uid,
    health: healthJson(webhook.health),
    expectedIntervalSeconds: webhook.expectedIntervalSeconds,
    window: stats.window,
    from: stats.from.toISOString(),
    to: stats.to.toISOString(),
    bucketSeconds: stats.bucketSeconds,
    totals: stats.totals,
    // Accepted deliveries per event type; "" stands for deliveries whose sender names no type.
    eventTypes: stats.eventTypes,
    eventTypesTruncated: stats.eventTypesTruncated,
    buckets: stats.buckets.map((bucket) => ({
      start: bucket.start.toISOString(),
      counts: bucket.counts,
      eventTypes: Object.fromEntries(stats.typeSeries.map((type, index) => [type, bucket.types[index]!])),
      otherEventTypes: bucket.otherTypes,
    })),
  };
}
