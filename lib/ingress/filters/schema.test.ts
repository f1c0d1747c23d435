import { describe, expect, it } from 'vitest';
import {
  MAX_FILTER_BYTES,
  MAX_FILTER_DEPTH,
  MAX_FILTER_KEYS,
  MAX_FILTER_LIST_VALUES,
  MAX_FILTER_STRING_LENGTH,
  payloadFilterSchema,
  validateFilter,
} from '@/lib/ingress/filters';

const HINT = '(use a value, a list, or {"in"}, {"not_in"}, {"exists"})';

function errorsOf(value: unknown) {
  const result = validateFilter(value);
  return result.ok ? [] : result.errors;
}

describe('validateFilter: accepted filters', () => {
  it.each<[string, unknown]>([
    ['empty filter', {}],
    ['scalars', { s: 'x', n: 1.5, t: true, f: false, z: null, neg: -3 }],
    ['bare array of mixed scalars', { a: ['x', 1, true, null] }],
    ['in', { a: { in: ['x'] } }],
    ['not_in', { a: { not_in: ['x', null] } }],
    ['exists true', { a: { exists: true } }],
    ['exists false', { a: { exists: false } }],
    ['nested fields with operators', { pull_request: { draft: false, base: { ref: { in: ['main'] } } } }],
    ['plain keys that look like operators elsewhere', { amount: { gt: 100, regex: 'x', eq: 1 } }],
    ['dotted key', { 'a.b': 1 }],
    ['operator names as string values', { kind: 'in', mode: ['exists', 'not_in'] }],
  ])('%s', (_what, filter) => {
    const result = validateFilter(filter);
    expect(result).toEqual({ ok: true, filter });
  });

  it('returns the same object, typed', () => {
    const filter = { a: 1 };
    const result = validateFilter(filter);
    expect(result.ok && result.filter).toBe(filter);
  });
});

describe('validateFilter: errors, in plain words', () => {
  it.each<[string, unknown, Array<{ path: string; message: string }>]>([
    ['an array', [], [{ path: '', message: 'the filter must be a JSON object, not an array' }]],
    ['a string', 'x', [{ path: '', message: 'the filter must be a JSON object, not a string' }]],
    ['a number', 1, [{ path: '', message: 'the filter must be a JSON object, not a number' }]],
    ['null', null, [{ path: '', message: 'the filter must be a JSON object, not null' }]],
    ['a Date', new Date(0), [{ path: '', message: 'the filter must be a JSON object, not a non-plain object' }]],
    ['unknown $ operator', { status: { $eq: 'open' } }, [{ path: 'status', message: `at "status": unknown operator "$eq" ${HINT}` }]],
    ['$ operator at the top', { $or: [{ a: 1 }] }, [{ path: '', message: `unknown operator "$or" ${HINT}` }]],
    ['$ key beside fields', { pr: { draft: false, $exists: true } }, [{ path: 'pr', message: `at "pr": unknown operator "$exists" ${HINT}` }]],
    ['operator at the top', { in: ['a'] }, [{ path: '', message: '"in" is an operator and must sit under a field name, e.g. {"status": {"in": ["a", "b"]}}' }]],
    ['exists at the top', { exists: true }, [{ path: '', message: '"exists" is an operator and must sit under a field name, e.g. {"status": {"exists": true}}' }]],
    ['in without a list', { labels: { in: 'bug' } }, [{ path: 'labels.in', message: 'at "labels.in": "in" needs a list of values' }]],
    ['not_in without a list', { labels: { not_in: 3 } }, [{ path: 'labels.not_in', message: 'at "labels.not_in": "not_in" needs a list of values' }]],
    ['exists not a boolean', { sha: { exists: 'yes' } }, [{ path: 'sha.exists', message: 'at "sha.exists": "exists" takes true or false, not a string' }]],
    ['exists null', { sha: { exists: null } }, [{ path: 'sha.exists', message: 'at "sha.exists": "exists" takes true or false, not null' }]],
    ['two operators', { a: { in: [1], not_in: [2] } }, [{ path: 'a', message: 'at "a": use one operator per field (found "in" and "not_in")' }]],
    [
      'operator mixed with a field',
      { a: { in: [1], b: 2 } },
      [{ path: 'a', message: 'at "a": mixes the operator "in" with the field "b"; an object holds either one operator or field names, not both' }],
    ],
    ['object in a bare list', { a: ['x', { b: 1 }] }, [{ path: 'a[1]', message: 'at "a[1]": a list can only hold strings, numbers, booleans or null, not an object' }]],
    ['array in an in list', { a: { in: [['x']] } }, [{ path: 'a.in[0]', message: 'at "a.in[0]": a list can only hold strings, numbers, booleans or null, not an array' }]],
    ['object in a not_in list', { a: { not_in: [{}] } }, [{ path: 'a.not_in[0]', message: 'at "a.not_in[0]": a list can only hold strings, numbers, booleans or null, not an object' }]],
    ['empty bare list', { a: [] }, [{ path: 'a', message: 'at "a": an empty list would never match; list at least one value' }]],
    ['empty in', { a: { in: [] } }, [{ path: 'a.in', message: 'at "a.in": an empty list would never match; list at least one value' }]],
    [
      'empty not_in',
      { a: { not_in: [] } },
      [{ path: 'a.not_in', message: 'at "a.not_in": an empty "not_in" list excludes nothing; list at least one value (or use {"exists": true} to require the field)' }],
    ],
    ['empty nested object', { a: {} }, [{ path: 'a', message: 'at "a": an empty object tests nothing; use {"exists": true} to require the field' }]],
    ['undefined value', { a: undefined }, [{ path: 'a', message: 'at "a": undefined is not a JSON value' }]],
    ['NaN', { a: Number.NaN }, [{ path: 'a', message: 'at "a": a non-finite number is not a JSON value' }]],
    ['Infinity in a list', { a: [Number.POSITIVE_INFINITY] }, [{ path: 'a[0]', message: 'at "a[0]": a non-finite number is not a JSON value' }]],
    ['a cycle', (() => { const a: Record<string, unknown> = {}; a.self = a; return a; })(), [{ path: '', message: 'the filter is not plain JSON' }]],
    ['a bigint', { a: BigInt(1) }, [{ path: '', message: 'the filter is not plain JSON' }]],
    ['quoted paths', { 'a.b': { $x: 1 } }, [{ path: '["a.b"]', message: `at "["a.b"]": unknown operator "$x" ${HINT}` }]],
  ])('%s', (_what, value, errors) => {
    expect(errorsOf(value)).toEqual(errors);
  });

  it('reports every error, in filter order', () => {
    expect(errorsOf({ a: { in: 'x' }, b: 1, c: { d: { exists: 1 } }, e: [{}] }).map((e) => e.path)).toEqual(['a.in', 'c.d.exists', 'e[0]']);
  });
});

function nest(levels: number): Record<string, unknown> {
  let value: unknown = 'leaf';
  for (let level = levels; level >= 1; level--) value = { [`l${level}`]: value };
  return value as Record<string, unknown>;
}

function keys(count: number): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
}

// Builds `{"a":[...]}` that is exactly `bytes` long as compact JSON, from strings under the string limit.
function sized(bytes: number): Record<string, unknown> {
  const overhead = '{"a":[]}'.length;
  const items: string[] = [];
  let remaining = bytes - overhead;
  while (remaining > 0) {
    const separator = items.length === 0 ? 0 : 1;
    const length = Math.min(MAX_FILTER_STRING_LENGTH, remaining - 2 - separator);
    items.push('x'.repeat(length));
    remaining -= length + 2 + separator;
  }
  const value = { a: items };
  expect(JSON.stringify(value).length).toBe(bytes);
  return value;
}

describe('validateFilter: limits', () => {
  it('exports the documented limits', () => {
    expect([MAX_FILTER_DEPTH, MAX_FILTER_KEYS, MAX_FILTER_LIST_VALUES, MAX_FILTER_STRING_LENGTH, MAX_FILTER_BYTES]).toEqual([5, 50, 100, 1000, 10240]);
  });

  it('depth: 5 levels ok, 6 refused', () => {
    expect(validateFilter(nest(5)).ok).toBe(true);
    expect(validateFilter({ l1: { l2: { l3: { l4: { l5: { in: ['x'] } } } } } }).ok).toBe(true);
    expect(errorsOf(nest(6))).toEqual([{ path: 'l1.l2.l3.l4.l5', message: 'at "l1.l2.l3.l4.l5": nested too deeply; a filter reaches at most 5 levels into the payload' }]);
  });

  it('keys: 50 ok, 51 refused, counted at every level but not operators', () => {
    expect(validateFilter(keys(50)).ok).toBe(true);
    expect(errorsOf(keys(51))).toEqual([{ path: '', message: 'the filter has 51 field names; the limit is 50' }]);
    expect(validateFilter({ ...keys(47), n: { m: { o: { exists: true } } } }).ok).toBe(true);
    expect(errorsOf({ ...keys(48), n: { m: { o: { exists: true } } } })).toEqual([{ path: '', message: 'the filter has 51 field names; the limit is 50' }]);
  });

  it('list values: 100 ok, 101 refused, for bare lists, in and not_in', () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(validateFilter({ a: list(100), b: { in: list(100) }, c: { not_in: list(100) } }).ok).toBe(true);
    expect(errorsOf({ a: list(101), b: { in: list(101) }, c: { not_in: list(101) } })).toEqual([
      { path: 'a', message: 'at "a": a list holds at most 100 values (this one has 101)' },
      { path: 'b.in', message: 'at "b.in": a list holds at most 100 values (this one has 101)' },
      { path: 'c.not_in', message: 'at "c.not_in": a list holds at most 100 values (this one has 101)' },
    ]);
  });

  it('string length: 1,000 characters ok, 1,001 refused, in values, lists and field names', () => {
    const ok = 'x'.repeat(1000);
    const over = 'x'.repeat(1001);
    expect(validateFilter({ a: ok, b: [ok], [ok]: 1 }).ok).toBe(true);
    expect(errorsOf({ a: over, b: { in: [over] } })).toEqual([
      { path: 'a', message: 'at "a": a string is at most 1,000 characters (this one has 1,001)' },
      { path: 'b.in[0]', message: 'at "b.in[0]": a string is at most 1,000 characters (this one has 1,001)' },
    ]);
    const [error] = errorsOf({ [over]: 1 });
    expect(error?.message).toMatch(/^at "x{79}…": a field name is at most 1,000 characters$/);
  });

  it('string length counts characters, not UTF-16 units', () => {
    expect(validateFilter({ a: '😀'.repeat(1000) }).ok).toBe(true);
    expect(errorsOf({ a: '😀'.repeat(1001) })[0]?.message).toBe('at "a": a string is at most 1,000 characters (this one has 1,001)');
  });

  it('size: 10,240 bytes of JSON ok, 10,241 refused', () => {
    expect(validateFilter(sized(MAX_FILTER_BYTES)).ok).toBe(true);
    expect(errorsOf(sized(MAX_FILTER_BYTES + 1))).toEqual([{ path: '', message: 'the filter is 10,241 bytes of JSON; the limit is 10,240 bytes (10 KB)' }]);
  });

  it('size counts UTF-8 bytes', () => {
    const value = { a: ['é'.repeat(1000), 'é'.repeat(1000), 'é'.repeat(1000), 'é'.repeat(1000), 'é'.repeat(1000), 'é'.repeat(200)] };
    expect(JSON.stringify(value).length).toBeLessThan(MAX_FILTER_BYTES);
    expect(errorsOf(value)[0]?.message).toMatch(/^the filter is 10,4\d\d bytes of JSON/);
  });
});

describe('payloadFilterSchema', () => {
  it('accepts a valid filter', () => {
    expect(payloadFilterSchema.parse({ action: ['opened'] })).toEqual({ action: ['opened'] });
  });

  it('puts every message on the filter field itself', () => {
    const result = payloadFilterSchema.safeParse({ status: { $eq: 'open' }, labels: { in: 'x' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [[], `at "status": unknown operator "$eq" ${HINT}`],
      [[], 'at "labels.in": "in" needs a list of values'],
    ]);
  });

  it('composes: nullable for "no payload filter"', () => {
    const optional = payloadFilterSchema.nullable().optional();
    expect(optional.parse(null)).toBeNull();
    expect(optional.parse(undefined)).toBeUndefined();
    expect(optional.safeParse([]).success).toBe(false);
  });
});
