import { z } from 'zod';
import { eventPatternProblem } from '@/lib/ingress/filters/events';
import { parseIsoInstant } from '@/lib/platform/instant';

export const deliveryStatuses = ['accepted', 'duplicate', 'rejected_auth', 'rejected_invalid_json', 'rejected_too_large'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/**
 * What the log can be filtered by: the five labels of a request's outcome
 * (accepted, duplicate and three rejections; docs/ingress.md), answered provider
 * handshakes, and the per-minute summaries of requests refused with 429 by the
 * budgets on unauthenticated requests (lib/ingress/log-budget.ts), and requests
 * from outside the webhook's IP allowlist (answered 404, lib/ingress/allowlist.ts).
 */
export const deliveryStatusFilters = [...deliveryStatuses, 'handshake', 'refused', 'refused_address'] as const;
export type DeliveryStatusFilter = (typeof deliveryStatusFilters)[number];

export const deliveryStatusLabels: Record<DeliveryStatusFilter, string> = {
  accepted: 'Accepted',
  duplicate: 'Duplicate',
  rejected_auth: 'Rejected (auth)',
  rejected_invalid_json: 'Rejected (invalid JSON)',
  rejected_too_large: 'Rejected (too large)',
  handshake: 'Handshake',
  refused: 'Refused (429)',
  refused_address: 'Refused (address)',
};

export const listDeliveriesSchema = z.object({
  status: z.preprocess((v) => (v === '' ? undefined : v), z.enum(deliveryStatusFilters, { error: `status must be one of ${deliveryStatusFilters.join(', ')}` }).optional()),
  limit: z.preprocess((v) => (v === '' || v === undefined ? undefined : v), z.coerce.number().int().min(1, 'limit must be 1 to 100').max(100, 'limit must be 1 to 100').default(50)),
  cursor: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(200).optional()),
  q: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().max(200, 'Search for at most 200 characters').optional()),
  /** An event type (`pull_request.opened`) or a pattern with `*` segments (`pull_request.*`), as a trigger's events. */
  event: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .superRefine((value, context) => {
        const problem = eventPatternProblem(value);
        if (problem) context.addIssue({ code: 'custom', message: `The event type filter is not valid: ${problem}` });
      })
      .optional(),
  ),
});
export type ListDeliveriesInput = z.input<typeof listDeliveriesSchema>;

/**
 * Whether a search text is looked up in payloads too: it needs three letters
 * or digits in a row (a trigram the body index can look up). Shorter text
 * would read the webhook's whole log, so it matches delivery IDs only.
 */
export function searchesPayloads(q: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(q);
}

/** The longest `since` a stream accepts: what retention can keep at most. */
const MAX_SINCE_DAYS = 366;
const DURATION = /^(\d{1,6})(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `since` as a duration before now (`90s`, `30m`, `1h`, `2d`) or an ISO 8601 time; the Date it names. */
export function parseSince(value: string, now = Date.now()): Date | string {
  const duration = DURATION.exec(value);
  const at = duration ? new Date(now - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]) : parseIsoInstant(value);
  if (!at || Number.isNaN(at.getTime())) return 'since must be a duration (90s, 30m, 1h, 2d) or an ISO 8601 time (2026-11-27T08:00:00Z)';
  if (now - at.getTime() > MAX_SINCE_DAYS * UNIT_MS.d) return `since may go back at most ${MAX_SINCE_DAYS} days`;
  return at;
}

/** The query of a stream of the log (GET .../deliveries/stream): where it starts, and which entries it sends. */
export const streamDeliveriesSchema = z.object({
  status: listDeliveriesSchema.shape.status,
  event: listDeliveriesSchema.shape.event,
  after: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(200, 'after must be an entry id of at most 200 characters').optional()),
  since: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .max(40, 'since must be a duration (90s, 30m, 1h, 2d) or an ISO 8601 time')
      .transform((value, context) => {
        const parsed = parseSince(value);
        if (typeof parsed === 'string') {
          context.addIssue({ code: 'custom', message: parsed });
          return z.NEVER;
        }
        return parsed;
      })
      .optional(),
  ),
});
