// The shape of a payload filter (docs/filters.md) and the small helpers that the
// validator and the evaluator must agree on. Pure code: this runs on the
// ingress hot path.

export type FilterScalar = string | number | boolean | null;

export type FilterOperator = { in: FilterScalar[] } | { not_in: FilterScalar[] } | { exists: boolean };

/** What a filter key maps to: a value (equality), a list of allowed values, one operator, or nested fields. */
export type FilterCondition = FilterScalar | FilterScalar[] | FilterOperator | PayloadFilter;

/** A JSON object mirroring the delivery body; every key must match. */
export type PayloadFilter = { [field: string]: FilterCondition };

export type FilterCheck = {
  /** Where in the payload, e.g. `pull_request.draft` or `items[2].sku`. */
  path: string;
  passed: boolean;
  /** What the filter asks for, e.g. `one of ["opened","reopened"]`. */
  expected: string;
  /** Short JSON of the payload value, or `missing`. */
  actual: string;
  reason: string;
};

export type FilterResult = { matched: boolean; checks: FilterCheck[] };

export const OPERATORS = ['in', 'not_in', 'exists'] as const;
export type OperatorName = (typeof OPERATORS)[number];

export function isOperatorName(key: string): key is OperatorName {
  return key === 'in' || key === 'not_in' || key === 'exists';
}

export type PathSegment = string | number;

// Keys are joined with dots for reading; a key that would make the rendering
// ambiguous (a dot, a bracket, a quote, empty) is shown quoted in brackets, so
// `{"a.b": 1}` and `{"a": {"b": 1}}` never display the same path.
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[^.[\]"\s]+$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function isScalar(value: unknown): value is FilterScalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** "a string", "an object"...: for sentences shown to automation editors. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isPlainObject(value)) return 'an object';
  if (typeof value === 'object') return 'a non-plain object';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isFinite(value) ? 'a number' : 'a non-finite number';
    case 'boolean':
      return 'a boolean';
    case 'undefined':
      return 'undefined';
    default:
      return `a ${typeof value}`;
  }
}

export const RENDER_LIMIT = 120;

// Bounded JSON rendering: a payload value can be a 256 KB subtree, and the
// explanation only ever shows its first ~120 characters, so stop building as
// soon as the limit is passed instead of stringifying the whole value.
export function renderJson(value: unknown, limit = RENDER_LIMIT): string {
  const parts: string[] = [];
  let length = 0;
  const push = (text: string): boolean => {
    parts.push(text);
    length += text.length;
    return length <= limit;
  };
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return push(JSON.stringify(v.length > limit ? v.slice(0, limit + 1) : v));
    if (v === null || typeof v === 'boolean' || typeof v === 'number') return push(JSON.stringify(v));
    if (Array.isArray(v)) {
      if (!push('[')) return false;
      for (let i = 0; i < v.length; i++) {
        if (i > 0 && !push(',')) return false;
        if (!walk(v[i])) return false;
      }
      return push(']');
    }
    if (typeof v === 'object') {
      if (!push('{')) return false;
      let first = true;
      for (const [key, item] of Object.entries(v)) {
        if (!first && !push(',')) return false;
        first = false;
        if (!push(`${JSON.stringify(key.length > limit ? key.slice(0, limit + 1) : key)}:`)) return false;
        if (!walk(item)) return false;
      }
      return push('}');
    }
    return push(String(v));
  };
  walk(value);
  const text = parts.join('');
  if (text.length <= limit) return text;
  let cut = text.slice(0, limit - 1);
  // Never leave half of a surrogate pair before the ellipsis.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}…`;
}
