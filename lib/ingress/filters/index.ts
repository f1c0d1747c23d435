// A trigger's filter (event types, header filter, payload filter): validated
// when an automation is saved, evaluated against each accepted delivery.
// Rules and examples: docs/filters.md.
export type { FilterCheck, FilterCondition, FilterOperator, FilterResult, FilterScalar, PayloadFilter } from './types';
export { describeCheck, evaluateFilter, matchesFilter } from './evaluate';
export {
  MAX_FILTER_BYTES,
  MAX_FILTER_DEPTH,
  MAX_FILTER_KEYS,
  MAX_FILTER_LIST_VALUES,
  MAX_FILTER_STRING_LENGTH,
  payloadFilterSchema,
  validateFilter,
  type FilterError,
  type ValidateFilterResult,
} from './schema';
export { MAX_EVENT_PATTERN_LENGTH, MAX_EVENT_PATTERNS, eventPatternsSchema, matchesEventTypes, validateEventPatterns, type EventTypeCheck } from './events';
export { headerFilterSchema, validateHeaderFilter, type HeaderCondition, type HeaderFilter } from './headers';
export { evaluateTrigger, matchesTrigger, type DeliveryFacts, type TriggerEvaluation, type TriggerFilter } from './trigger';
