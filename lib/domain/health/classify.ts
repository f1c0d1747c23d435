import { deliveryStatusFilters, type DeliveryStatusFilter } from '@/lib/domain/deliveries/schemas';

// Webhook health, as a pure function of a few figures taken from the log
// (lib/domain/health/service.ts). The thresholds are the documented ones
// (docs/notifications.md, Health): change them there too.

/** "Recently": the window the request-based states look at. */
export const HEALTH_WINDOW_MS = 15 * 60 * 1000;

/** The smallest and largest expected interval a webhook may declare (1 minute to 30 days). */
export const MIN_EXPECTED_INTERVAL_SECONDS = 60;
export const MAX_EXPECTED_INTERVAL_SECONDS = 30 * 24 * 60 * 60;

export const healthStates = ['healthy', 'failing_auth', 'rate_limited', 'rejecting_payloads', 'silent', 'new'] as const;
export type HealthState = (typeof healthStates)[number];

export const healthLabels: Record<HealthState, string> = {
  healthy: 'Healthy',
  failing_auth: 'Failing auth',
  rate_limited: 'Rate limited',
  rejecting_payloads: 'Rejecting payloads',
  silent: 'Silent',
  new: 'New',
};

/** Every status a log entry can have (the log's filters are exactly these). */
export const deliveryStatuses = deliveryStatusFilters;
export type DeliveryStatusName = DeliveryStatusFilter;
export type StatusCounts = Record<DeliveryStatusName, number>;

export const emptyCounts = (): StatusCounts => ({
  accepted: 0,
  duplicate: 0,
  rejected_auth: 0,
  rejected_invalid_json: 0,
  rejected_too_large: 0,
  handshake: 0,
  refused: 0,
  refused_address: 0,
});

export type HealthInput = {
  now: Date;
  createdAt: Date;
  expectedIntervalSeconds: number | null;
  /** Requests per status in the window (refused summaries count every request they stand for). */
  recent: StatusCounts;
  /** The last time the delivery rate limit was seen spent (lib/domain/health/rate-limits.ts). */
  rateLimitedAt: Date | null;
  lastAcceptedAt: Date | null;
  /** The newest entry of any status, however old. */
  lastDeliveryAt: Date | null;
};

export type Health = {
  state: HealthState;
  /** Why, in words, for the dashboard and the API. */
  reason: string;
  lastAcceptedAt: Date | null;
};

const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;

/**
 * The first state that holds, in this order:
 *   failing_auth        at least one request rejected for authentication in the window, and none accepted (nor duplicate) in it;
 *   rate_limited        a request refused with 429 in the window: the delivery rate limit was spent, or a refused summary;
 *   rejecting_payloads  at least one request rejected as invalid JSON or too large in the window;
 *   silent              an expected interval is set and no delivery was accepted for longer than it (counted from creation if none ever was);
 *   new                 nothing was ever received;
 *   healthy             otherwise.
 */
export function classifyHealth(input: HealthInput): Health {
  const { recent, now } = input;
  const windowStart = now.getTime() - HEALTH_WINDOW_MS;
  const accepted = recent.accepted + recent.duplicate;
  const result = (state: HealthState, reason: string): Health => ({ state, reason, lastAcceptedAt: input.lastAcceptedAt });

  if (recent.rejected_auth > 0 && accepted === 0) {
    return result('failing_auth', `${plural(recent.rejected_auth, 'request')} rejected for authentication and none accepted in the last 15 minutes`);
  }
  const limitedRecently = input.rateLimitedAt !== null && input.rateLimitedAt.getTime() >= windowStart;
  if (recent.refused > 0 || limitedRecently) {
    return result('rate_limited', 'requests were refused with 429 (rate limit) in the last 15 minutes');
  }
  const badPayloads = recent.rejected_invalid_json + recent.rejected_too_large;
  if (badPayloads > 0) {
    return result('rejecting_payloads', `${plural(badPayloads, 'request')} rejected as invalid JSON or too large in the last 15 minutes`);
  }
  if (input.expectedIntervalSeconds !== null) {
    const since = input.lastAcceptedAt ?? input.createdAt;
    if (now.getTime() - since.getTime() > input.expectedIntervalSeconds * 1000) {
      return result('silent', `no delivery accepted for longer than the expected ${formatInterval(input.expectedIntervalSeconds)}`);
    }
  }
  if (input.lastDeliveryAt === null) return result('new', 'nothing received yet');
  return result('healthy', accepted > 0 ? `${plural(accepted, 'delivery', 'deliveries')} accepted in the last 15 minutes` : 'no problem in the last 15 minutes');
}

/** 3600 -> "1 h", 90 -> "90 s", 86400 -> "1 d". */
export function formatInterval(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The states a notification is sent for when they start (webhook.recovered when they end). */
export const notifiedStates = { failing_auth: 'webhook.failing', rate_limited: 'webhook.rate_limited', silent: 'webhook.silent' } as const;
export type NotifiedState = keyof typeof notifiedStates;
export const isNotified = (state: string): state is NotifiedState => state in notifiedStates;
