import { MAX_FILTER_STRING_LENGTH } from './schema';
import { isOperatorName, isPlainObject, isScalar, type FilterScalar, type PayloadFilter } from './types';

// A validated payload filter as a SQL predicate over a jsonb copy of the body
// (docs/filters.md, "Backtest in SQL"), for Backtest over the whole retained
// log. Same SQL on PostgreSQL and PGlite. It must decide exactly as the
// TypeScript evaluator (evaluate.ts) does; lib/ingress/filters/sql.int.test.ts proves
// it on random filters and payloads. The rules it mirrors:
// - a field that is missing fails every condition but `exists: false`; a
//   parent that is a scalar (or an empty array) fails every condition;
// - a scalar or a list against a payload array looks at the array's scalar
//   elements (never inside nested arrays or objects);
// - nested fields against an array of objects need one object element that
//   matches all of them;
// - equality is type-strict and numbers compare by value (1 equals 1.0).
//
// The copy it runs on is written by lib/domain/deliveries/body-json.ts from the
// parsed body (JSON.stringify of JSON.parse), so its numbers are the doubles
// the evaluator compares, and a body jsonb cannot hold (a U+0000, a lone
// surrogate) has no copy and is evaluated in TypeScript. Filter values are
// always bound as parameters, never spliced into the SQL text.

/** Placeholders are numbered after the parameters already in `params`, which this appends to. */
export type SqlParams = unknown[];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** False for a string that PostgreSQL's jsonb (and text) cannot hold: a U+0000 or a lone UTF-16 surrogate. */
export function jsonbCanHold(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

const storable = (value: FilterScalar): boolean => typeof value !== 'string' || jsonbCanHold(value);

class Translator {
  private alias = 0;
  constructor(private readonly params: SqlParams) {}

  private param(value: string, type: 'jsonb' | 'text'): string {
    this.params.push(value);
    return `$${this.params.length}::${type}`;
  }

  // The values a jsonb copy can hold, as jsonb scalars and one-element arrays
  // (`array @> '[v]'` is "v is one of the array's scalar elements").
  private anyOf(values: readonly FilterScalar[], y: string): string {
    const kept = values.filter(storable);
    // Nothing listed can be in a copy. `y` still appears, so that the key
    // parameter it holds is bound to a type.
    if (kept.length === 0) return `(${y} IS NOT NULL AND false)`;
    const scalars = kept.map((v) => this.param(JSON.stringify(v), 'jsonb')).join(', ');
    const singletons = kept.map((v) => this.param(JSON.stringify([v]), 'jsonb')).join(', ');
    return `COALESCE(${y} = ANY(ARRAY[${scalars}]) OR ${y} @> ANY(ARRAY[${singletons}]), false)`;
  }

  /** The condition on the field at `at`, whose jsonb expression is SQL NULL when the field is missing. */
  condition(condition: unknown, at: Place): string {
    const y = render(at);
    if (isScalar(condition)) return this.anyOf([condition], y);
    if (Array.isArray(condition)) return this.anyOf(scalarList(condition), y);
    if (!isPlainObject(condition)) throw invalid();
    const keys = Object.keys(condition);
    if (keys.length === 0) throw invalid();
    if (!keys.some(isOperatorName)) return this.fields(condition, at);
    if (keys.length !== 1) throw invalid();
    const [name] = keys as [string];
    const argument = condition[name];
    if (name === 'exists') {
      if (typeof argument !== 'boolean') throw invalid();
      return argument ? `(${y} IS NOT NULL)` : `(${y} IS NULL)`;
    }
    const list = scalarList(argument);
    if (name === 'in') return this.anyOf(list, y);
    // not_in: present, and no value (or, for an array, no element) listed.
    return `(${y} IS NOT NULL AND NOT ${this.anyOf(list, y)})`;
  }

  /** Nested fields against `at`: an object, an array holding a matching object, or (missing) only `exists: false`. */
  fields(filter: Record<string, unknown>, at: Place): string {
    const x = render(at);
    const alias = `e${++this.alias}`;
    return (
      `(CASE jsonb_typeof(${x}) WHEN 'object' THEN ${this.objectFields(filter, at)}` +
      ` WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${x}) AS ${alias}(v)` +
      ` WHERE jsonb_typeof(${alias}.v) = 'object' AND ${this.objectFields(filter, { base: `${alias}.v`, path: [] })})` +
      // Missing (SQL NULL) passes only when every leaf is `exists: false`; a scalar never does.
      ` ELSE ${missingPasses(filter) ? `(${x} IS NULL)` : 'false'} END)`
    );
  }

  private objectFields(filter: Record<string, unknown>, object: Place): string {
    const parts = Object.keys(filter).map((key) =>
      // A key jsonb cannot hold is missing from every copy.
      jsonbCanHold(key)
        ? this.condition(filter[key], { base: object.base, path: [...object.path, this.param(key, 'text')] })
        : String(missingPasses({ [key]: filter[key] })),
    );
    return `(${parts.join(' AND ')})`;
  }
}

/**
 * A place in a copy: a jsonb expression and the keys from it, read with one
 * `#>` (no copy of the containers on the way, as a chain of `->` would make).
 * The walk only descends into objects, so `#>` never indexes an array.
 */
type Place = { base: string; path: string[] };

function render({ base, path }: Place): string {
  if (path.length === 0) return base;
  if (path.length === 1) return `(${base} -> ${path[0]})`;
  return `(${base} #> ARRAY[${path.join(', ')}])`;
}

function invalid(): Error {
  return new Error('filterToSql needs a validated filter (validateFilter)');
}

function scalarList(value: unknown): FilterScalar[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) throw invalid();
  return value;
}

/** Whether `filter`'s fields all pass when their parent is missing: only when every leaf is `exists: false`. */
function missingPasses(filter: Record<string, unknown>): boolean {
  return Object.values(filter).every((condition) => {
    if (!isPlainObject(condition)) return false;
    const keys = Object.keys(condition);
    if (keys.some(isOperatorName)) return keys.length === 1 && condition.exists === false;
    return keys.length > 0 && missingPasses(condition);
  });
}

/**
 * The SQL boolean expression that is true when the jsonb value `column` (an
 * SQL expression, never NULL) matches `filter`; no filter or `{}` is `true`.
 * Throws on a filter that validation would refuse.
 */
export function filterToSql(filter: PayloadFilter | null | undefined, column: string, params: SqlParams): string {
  if (filter === null || filter === undefined) return 'true';
  if (!isPlainObject(filter)) throw invalid();
  if (Object.keys(filter).length === 0) return 'true';
  return new Translator(params).fields(filter, { base: column, path: [] });
}

/** Nesting deeper than this gets no jsonb copy: PostgreSQL's parser recurses per level, and no real payload comes close. */
export const JSONB_COPY_MAX_DEPTH = 200;

/**
 * The text to store as a body's jsonb copy, or null when jsonb cannot hold it
 * faithfully: a string or key with U+0000 or a lone surrogate, a number that
 * parses to Infinity, or nesting deeper than JSONB_COPY_MAX_DEPTH. The copy is
 * the parsed body written again, so every number is the double the evaluator
 * compares (`12345678901234567890` becomes `12345678901234567000`, as in
 * JSON.parse), without what no filter can tell apart (see `shrink`). `body`
 * is valid JSON (the ingress accepted it).
 */
export function jsonbCopyOf(body: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  // Iterative: an accepted body may be nested 60,000 levels deep.
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item === 'string') {
      if (!jsonbCanHold(item)) return null;
    } else if (typeof item === 'number') {
      if (!Number.isFinite(item)) return null;
    } else if (typeof item === 'object' && item !== null) {
      if (depth >= JSONB_COPY_MAX_DEPTH) return null;
      if (Array.isArray(item)) {
        for (const element of item) stack.push([element, depth + 1]);
      } else {
        for (const [key, element] of Object.entries(item)) {
          if (!jsonbCanHold(key)) return null;
          stack.push([element, depth + 1]);
        }
      }
    }
  }
  return JSON.stringify(value, shrink);
}

function longerThanAnyFilterString(text: string): boolean {
  if (text.length <= MAX_FILTER_STRING_LENGTH) return false;
  let count = 0;
  for (const _ of text) if (++count > MAX_FILTER_STRING_LENGTH) return true;
  return false;
}

// What no filter can tell apart is left out of the copy, so Backtest reads
// less: a string longer than any filter string (1,000 characters) can equal
// no filter value, so it becomes `[]`, which every condition treats exactly
// as it treats such a string (equal to nothing, in no list, present, not an
// object); and a key longer than any filter key is one no filter can name,
// so it is left out, as if missing.
function shrink(this: unknown, key: string, value: unknown): unknown {
  if (key !== '' && !Array.isArray(this) && longerThanAnyFilterString(key)) return undefined;
  return typeof value === 'string' && longerThanAnyFilterString(value) ? [] : value;
}
