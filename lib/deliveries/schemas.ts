import { z } from 'zod';
import { eventPatternProblem } from '@/lib/filters/events';

export const deliveryStatuses = ['accepted', 'duplicate', 'rejected_auth', 'rejected_invalid_json', 'rejected_too_large'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/**
 * What the log can be filtered by: the five labels of a request's outcome
 * (accepted, duplicate and three rejections; docs/ingress.md), answered provider
 * handshakes, and the per-minute summaries of requests refused with 429 by the
 * budgets on unauthenticated requests (lib/ingress/log-budget.ts).
 */
export const deliveryStatusFilters = [...deliveryStatuses, 'handshake', 'refused'] as const;
export type DeliveryStatusFilter = (typeof deliveryStatusFilters)[number];

export const deliveryStatusLabels: Record<DeliveryStatusFilter, string> = {
  accepted: 'Accepted',
  duplicate: 'Duplicate',
  rejected_auth: 'Rejected (auth)',
  rejected_invalid_json: 'Rejected (invalid JSON)',
  rejected_too_large: 'Rejected (too large)',
  handshake: 'Handshake',
  refused: 'Refused (429)',
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
