import { looksSensitive } from '@/lib/platform/http/sensitive-headers';
import { isPlainObject, type FilterScalar } from '@/lib/ingress/filters/types';

// The field catalogue of a webhook (docs/filters.md, The field catalogue):
// every field path seen in a sample of its accepted deliveries, with its JSON
// types, how many deliveries hold it, and its most frequent short values.
// Pure code over parsed bodies; loading the sample is lib/domain/fields/service.ts.
//
// Arrays are summarised by element (`items[].sku`), the way a filter reads
// them: a condition on a field under an array matches when one element does.

export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export type FieldValue = { value: FilterScalar; count: number };

export type CatalogueField = {
  /** Display path, e.g. `pull_request.base.ref` or `items[].sku`. */
  path: string;
  /** The keys a filter nests to reach the field (array steps dropped): `["items", "sku"]`. */
  keys: string[];
  types: JsonType[];
  /** Deliveries of the sample that hold the field at least once. */
  present: number;
  /** Most frequent values, by deliveries that hold them; null for a field whose name looks like a secret. */
  values: FieldValue[] | null;
};

export type EventTypeCount = { type: string; count: number };

export type FieldCatalogue = {
  /** Deliveries looked at. */
  sampled: number;
  fields: CatalogueField[];
  /** True when more paths were seen than MAX_CATALOGUE_PATHS. */
  truncated: boolean;
  /** The event types of the sampled deliveries, most frequent first (up to TOP_EVENT_TYPES); deliveries without one are not counted. */
  eventTypes: EventTypeCount[];
};

/** Event types the catalogue lists: what the trigger editor offers to complete `events`. */
export const TOP_EVENT_TYPES = 50;

/** The sample's types, most frequent first (then by name, so the order is stable). */
export function countEventTypes(types: readonly (string | null)[]): EventTypeCount[] {
  const counts = new Map<string, number>();
  for (const type of types) if (type !== null) counts.set(type, (counts.get(type) ?? 0) + 1);
  return [...counts.entries()]
    .map(([type, count]) => ({ type, count }))
    .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))
    .slice(0, TOP_EVENT_TYPES);
}

export const MAX_CATALOGUE_PATHS = 500;
/** Strings longer than this are not offered as values. */
export const MAX_VALUE_LENGTH = 80;
export const TOP_VALUES = 8;
/** Distinct values tracked per field; past it, new values are not counted. */
const TRACKED_VALUES = 200;
/** Elements of one array looked at; the rest is alike in nearly every payload. */
const ARRAY_ELEMENTS = 50;
/** Deeper than this, fields are not listed (a filter reaches 5 levels). */
const MAX_DEPTH = 8;

type Entry = {
  path: string;
  keys: string[];
  types: Set<JsonType>;
  present: number;
  seenIn: number;
  sensitive: boolean;
  values: Map<string, { value: FilterScalar; count: number; seenIn: number }>;
};

function typeOf(value: unknown): JsonType | null {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isPlainObject(value)) return 'object';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return null;
}

// The header redaction rule; payload fields write api_key where headers write api-key.
const secretName = (key: string) => looksSensitive(key.replace(/_/g, '-'));

function pathSegment(key: string): string {
  return /^[A-Za-z0-9_$@-]+$/.test(key) ? key : `[${JSON.stringify(key)}]`;
}

/** Builds the catalogue of `bodies` (parsed JSON, newest first), with the deliveries' event types when given. */
export function buildCatalogue(bodies: readonly unknown[], eventTypes: readonly (string | null)[] = []): FieldCatalogue {
  const entries = new Map<string, Entry>();
  let truncated = false;
  let delivery = 0;

  const entryFor = (path: string, keys: string[], sensitive: boolean): Entry | null => {
    const found = entries.get(path);
    if (found) return found;
    if (entries.size >= MAX_CATALOGUE_PATHS) {
      truncated = true;
      return null;
    }
    const created: Entry = { path, keys, types: new Set(), present: 0, seenIn: -1, sensitive, values: new Map() };
    entries.set(path, created);
    return created;
  };

  const record = (value: unknown, path: string, keys: string[], sensitive: boolean, depth: number): void => {
    const type = typeOf(value);
    if (type === null) return;
    if (path !== '') {
      const entry = entryFor(path, keys, sensitive);
      if (!entry) return;
      entry.types.add(type);
      if (entry.seenIn !== delivery) {
        entry.seenIn = delivery;
        entry.present++;
      }
      if (!sensitive && (type !== 'string' || (value as string).length <= MAX_VALUE_LENGTH) && type !== 'object' && type !== 'array') {
        // Numbers by value, so 1 and 1.0 (the same to a filter) count as one.
        const id = `${type}:${String(value)}`;
        let counted = entry.values.get(id);
        if (!counted && entry.values.size < TRACKED_VALUES) {
          counted = { value: value as FilterScalar, count: 0, seenIn: -1 };
          entry.values.set(id, counted);
        }
        if (counted && counted.seenIn !== delivery) {
          counted.seenIn = delivery;
          counted.count++;
        }
      }
    }
    if (depth >= MAX_DEPTH) return;
    if (type === 'array') {
      const items = value as unknown[];
      for (let i = 0; i < Math.min(items.length, ARRAY_ELEMENTS); i++) record(items[i], `${path}[]`, keys, sensitive, depth + 1);
    } else if (type === 'object') {
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        const segment = pathSegment(key);
        record(child, path === '' ? segment : segment.startsWith('[') ? `${path}${segment}` : `${path}.${segment}`, [...keys, key], sensitive || secretName(key), depth + 1);
      }
    }
  };

  for (const body of bodies) {
    record(body, '', [], false, 0);
    delivery++;
  }

  const fields = [...entries.values()].map((entry): CatalogueField => ({
    path: entry.path,
    keys: entry.keys,
    types: [...entry.types].sort(),
    present: entry.present,
    values: entry.sensitive
      ? null
      : [...entry.values.values()]
          .sort((a, b) => b.count - a.count)
          .slice(0, TOP_VALUES)
          .map(({ value, count }) => ({ value, count })),
  }));
  return { sampled: bodies.length, fields, truncated, eventTypes: countEventTypes(eventTypes) };
}

/** Whole percent of the sample that holds a field ("100%", "37%", "<1%"). */
export function presenceText(present: number, sampled: number): string {
  if (sampled === 0) return '0%';
  const percent = (present / sampled) * 100;
  if (percent > 0 && percent < 1) return '<1%';
  return `${Math.floor(percent)}%`;
}
