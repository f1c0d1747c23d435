import 'server-only';
import { notFound } from 'next/navigation';
import { deliveryStatusFilters, type DeliveryStatusFilter } from '@/lib/domain/deliveries/schemas';
import { listDeliveries, recentEventTypes, type DeliverySummary } from '@/lib/domain/deliveries/service';
import { eventPatternProblem } from '@/lib/ingress/filters/events';
import { AppError } from '@/lib/platform/http/errors';

// The webhook page's delivery log, read from the URL's search params: what the
// page shows for every answer of the service, including the ones that are the
// reader's to fix (a stale cursor, a search past its time limit), which are
// said in the card rather than as an error page.

export type DeliveryLogView = {
  /** The page that holds the card: filters and pages are its search params. */
  path: string;
  status: DeliveryStatusFilter | null;
  q: string;
  /** The event type filter (a type, or a pattern with `*` segments). */
  event: string | null;
  /** The types among the newest entries, most frequent first: the event filter's choices. */
  eventTypes: { type: string; count: number }[];
  cursor: string | null;
  /** When the page was read (for "2 min ago"). */
  now: number;
  /** Null when the cursor could not be read, or the search could not be answered (searchProblem says why). */
  page: { deliveries: DeliverySummary[]; nextCursor: string | null } | null;
  /** Why the search (q) could not be answered, in words: a search of payloads that read past its time limit. */
  searchProblem?: string | null;
};

type SearchParams = Record<string, string | string[] | undefined>;

export const DELIVERIES_PER_PAGE = 25;

/** A search parameter's first value ('' when absent). */
export const firstValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';

/** The delivery log page the URL asks for (?status=&q=&event=&cursor=); unknown values are ignored, a bad cursor is reported. */
export async function loadDeliveryLog(factoryId: string, uid: string, path: string, search: SearchParams): Promise<DeliveryLogView> {
  const statusParam = firstValue(search.status);
  const status = (deliveryStatusFilters as readonly string[]).includes(statusParam) ? (statusParam as DeliveryStatusFilter) : null;
  const q = firstValue(search.q).trim().slice(0, 200);
  const cursor = firstValue(search.cursor) || null;
  // An event filter that is not a valid pattern is ignored, like an unknown status.
  const eventParam = firstValue(search.event).trim();
  const event = eventParam && eventPatternProblem(eventParam) === null ? eventParam : null;
  const eventTypes = await recentEventTypes(factoryId, uid).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') notFound();
    throw error;
  });
  const view = { path, status, q, event, eventTypes, cursor, now: Date.now() };
  if (cursor && cursor.length > 200) return { ...view, page: null };
  try {
    const page = await listDeliveries(factoryId, uid, {
      status: status ?? undefined,
      q: q || undefined,
      event: event ?? undefined,
      cursor: cursor ?? undefined,
      limit: DELIVERIES_PER_PAGE,
    });
    return { ...view, page };
  } catch (error) {
    // A search of payloads that read past its time limit: said under the search box, not an error page.
    if (error instanceof AppError && error.code === 'validation_failed' && error.fields?.q) return { ...view, page: null, searchProblem: error.fields.q };
    if (error instanceof AppError && error.code === 'validation_failed' && cursor) return { ...view, page: null };
    if (error instanceof AppError && error.code === 'not_found') notFound();
    throw error;
  }
}
