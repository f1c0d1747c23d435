import { describeCheck, evaluateFilter, matchesFilter } from './evaluate';
import { checkEventTypes, eventTypesToSql, matchesEventTypes, type EventTypeCheck } from './events';
import { describeHeaderCheck, evaluateHeaderFilter, headerFilterToSql, matchesHeaderFilter, type HeaderFilter } from './headers';
import { filterToSql, type SqlParams } from './sql';
import type { FilterResult, PayloadFilter } from './types';

// The one decision of whether a delivery matches a trigger's filter
// (docs/filters.md): its event types, then its header filter, then its
// payload filter, every present part required. The ingress and Replay
// (lib/domain/runs/start.ts), Test filter, Why not, Backtest and the editor's live
// count all call these, so they cannot disagree; triggerToSql is the same
// rule for Backtest's SQL, proven equal by lib/ingress/filters/sql.int.test.ts.

export type TriggerFilter = {
  /** Event type patterns (events.ts); null or absent: every type, and deliveries without one. */
  events?: readonly string[] | null;
  headers?: HeaderFilter | null;
  payload?: PayloadFilter | null;
};

/** What a trigger's filter reads of a delivery: its stored type, its stored (redacted) headers, its parsed body. */
export type DeliveryFacts = { eventType: string | null; headers: unknown; body: unknown };

export function matchesTrigger(filter: TriggerFilter, delivery: DeliveryFacts): boolean {
  return (
    matchesEventTypes(filter.events, delivery.eventType) &&
    matchesHeaderFilter(filter.headers, delivery.headers) &&
    matchesFilter(filter.payload ?? null, delivery.body)
  );
}

export type TriggerEvaluation = {
  matched: boolean;
  /** Null when the trigger lists no event types. */
  events: EventTypeCheck | null;
  /** Null when the trigger has no header filter. */
  headers: FilterResult | null;
  payload: FilterResult;
  /** Every failed check in one line each, event type first: what Why not and Backtest show. */
  failures: string[];
};

/** Every part evaluated and explained, in the order the ingress decides them. */
export function evaluateTrigger(filter: TriggerFilter, delivery: DeliveryFacts): TriggerEvaluation {
  const events = checkEventTypes(filter.events, delivery.eventType);
  const headers = filter.headers ? evaluateHeaderFilter(filter.headers, delivery.headers) : null;
  const payload = evaluateFilter(filter.payload ?? null, delivery.body);
  const failures = [
    ...(events && !events.passed ? [events.reason] : []),
    ...(headers ? headers.checks.filter((c) => !c.passed).map(describeHeaderCheck) : []),
    ...payload.checks.filter((c) => !c.passed).map(describeCheck),
  ];
  return { matched: (events?.passed ?? true) && (headers?.matched ?? true) && payload.matched, events, headers, payload, failures };
}

/** The SQL columns (expressions) holding what a trigger's filter reads. */
export type TriggerColumns = { eventType: string; headers: string; body: string };

/** Whether the filter reads more than the body: Backtest then joins the log's rows for their type and headers. */
export function readsDeliveryMetadata(filter: TriggerFilter): boolean {
  return (filter.events !== null && filter.events !== undefined) || (filter.headers !== null && filter.headers !== undefined && Object.keys(filter.headers).length > 0);
}

/** The trigger's filter as one SQL boolean expression; `true` when it has no condition at all. */
export function triggerToSql(filter: TriggerFilter, columns: TriggerColumns, params: SqlParams): string {
  const parts = [
    eventTypesToSql(filter.events, columns.eventType, params),
    headerFilterToSql(filter.headers, columns.headers, params),
    filterToSql(filter.payload ?? null, columns.body, params),
  ].filter((part) => part !== 'true');
  return parts.length === 0 ? 'true' : parts.map((part) => `(${part})`).join(' AND ');
}
