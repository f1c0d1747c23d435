import type { DeliveryStats, WebhookHealthView } from '@/lib/domain/health/service';
import type { WebhookView } from '@/lib/domain/webhooks/service';

/** A webhook's health as the management API returns it (docs/notifications.md, Health). */
export function healthJson(health: WebhookHealthView) {
  return { state: health.state, reason: health.reason, lastAcceptedAt: health.lastAcceptedAt?.toISOString() ?? null };
}

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
