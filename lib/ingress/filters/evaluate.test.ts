import { describe, expect, it } from 'vitest';
import { describeCheck, evaluateFilter, matchesFilter, validateFilter, type FilterCheck, type PayloadFilter } from '@/lib/ingress/filters';

// [what, filter, payload, matches]. Every filter here is also a valid saved
// filter (checked below), so these rows are the documented behaviour.
type Row = [string, PayloadFilter | null | undefined, unknown, boolean];

const rows: Row[] = [
  // No filter
  ['no filter (null) matches anything', null, { a: 1 }, true],
  ['no filter (undefined) matches anything', undefined, 'a string body', true],
  ['{} matches an object', {}, { a: 1 }, true],
  ['{} matches an array body', {}, [], true],
  ['{} matches a scalar body', {}, 42, true],

  // Scalar equality
  ['string equal', { action: 'opened' }, { action: 'opened' }, true],
  ['string different', { action: 'opened' }, { action: 'closed' }, false],
  ['strings are case-sensitive', { action: 'opened' }, { action: 'Opened' }, false],
  ['number equal', { n: 3 }, { n: 3 }, true],
  ['1 equals 1.0', { n: 1 }, JSON.parse('{"n": 1.0}'), true],
  ['1.0 in the filter equals 1', JSON.parse('{"n": 1.0}') as PayloadFilter, { n: 1 }, true],
  ['1 does not equal "1"', { n: 1 }, { n: '1' }, false],
  ['"1" does not equal 1', { n: '1' }, { n: 1 }, false],
  ['true does not equal "true"', { flag: true }, { flag: 'true' }, false],
  ['false does not equal 0', { flag: false }, { flag: 0 }, false],
  ['"" does not equal null', { s: '' }, { s: null }, false],
  ['null equals null', { s: null }, { s: null }, true],
  ['null does not match a missing key', { s: null }, {}, false],
  ['null does not equal "null"', { s: null }, { s: 'null' }, false],
  ['a scalar does not equal an object', { s: 'x' }, { s: { x: 1 } }, false],
  ['missing key fails equality', { action: 'opened' }, {}, false],
  ['every key must match (one fails)', { a: 1, b: 2 }, { a: 1, b: 3 }, false],
  ['every key must match (all pass)', { a: 1, b: 2 }, { a: 1, b: 2, c: 3 }, true],

  // Bare array = allowed values; `in` is the same
  ['bare array: value listed', { action: ['opened', 'reopened'] }, { action: 'reopened' }, true],
  ['bare array: value not listed', { action: ['opened', 'reopened'] }, { action: 'closed' }, false],
  ['in: value listed', { action: { in: ['opened', 'reopened'] } }, { action: 'opened' }, true],
  ['in: value not listed', { action: { in: ['opened', 'reopened'] } }, { action: 'closed' }, false],
  ['in is type-strict', { n: { in: ['1', '2'] } }, { n: 1 }, false],
  ['in may list null', { s: { in: [null, 'x'] } }, { s: null }, true],
  ['in against a missing key fails', { action: { in: ['opened'] } }, {}, false],
  ['bare array against a missing key fails', { action: ['opened'] }, {}, false],

  // not_in
  ['not_in: value not listed', { action: { not_in: ['closed'] } }, { action: 'opened' }, true],
  ['not_in: value listed', { action: { not_in: ['closed'] } }, { action: 'closed' }, false],
  ['not_in against a missing key fails', { action: { not_in: ['closed'] } }, {}, false],
  ['not_in passes for null when null is not listed', { s: { not_in: ['x'] } }, { s: null }, true],
  ['not_in fails for null when null is listed', { s: { not_in: [null] } }, { s: null }, false],
  ['not_in is type-strict', { n: { not_in: ['1'] } }, { n: 1 }, true],
  ['not_in passes for an object value', { s: { not_in: ['x'] } }, { s: { x: 1 } }, true],

  // exists
  ['exists: true, present', { sha: { exists: true } }, { sha: 'abc' }, true],
  ['exists: true, null counts as present', { sha: { exists: true } }, { sha: null }, true],
  ['exists: true, missing', { sha: { exists: true } }, {}, false],
  ['exists: false, missing', { sha: { exists: false } }, {}, true],
  ['exists: false, null counts as present', { sha: { exists: false } }, { sha: null }, false],
  ['exists: false, present', { sha: { exists: false } }, { sha: 'abc' }, false],
  ['exists: true, empty array is present', { labels: { exists: true } }, { labels: [] }, true],
  ['exists: false under a missing parent', { pr: { merged_by: { exists: false } } }, {}, true],
  ['exists: false under a scalar parent fails', { pr: { merged_by: { exists: false } } }, { pr: 'x' }, false],
  ['exists: false under a null parent fails', { pr: { merged_by: { exists: false } } }, { pr: null }, false],

  // Payload arrays
  ['scalar against array: any element', { labels: 'bug' }, { labels: ['bug', 'ui'] }, true],
  ['scalar against array: no element', { labels: 'bug' }, { labels: ['ui', 'docs'] }, false],
  ['bare array against array: any element', { labels: ['bug'] }, { labels: ['bug', 'ui'] }, true],
  ['bare array against array: one listed value is enough', { labels: ['bug', 'security'] }, { labels: ['ui', 'security'] }, true],
  ['in against array: no element', { labels: { in: ['bug'] } }, { labels: ['ui'] }, false],
  ['scalar against an empty array', { labels: 'bug' }, { labels: [] }, false],
  ['in against an empty array', { labels: { in: ['bug'] } }, { labels: [] }, false],
  ['not_in against array: no element listed', { labels: { not_in: ['wontfix'] } }, { labels: ['bug', 'ui'] }, true],
  ['not_in against array: one element listed', { labels: { not_in: ['wontfix'] } }, { labels: ['bug', 'wontfix'] }, false],
  ['not_in against an empty array', { labels: { not_in: ['wontfix'] } }, { labels: [] }, true],
  ['array elements compare type-strictly', { ids: 1 }, { ids: ['1', '2'] }, false],
  ['a scalar does not look inside arrays of arrays', { m: 'a' }, { m: [['a']] }, false],
  ['a scalar does not match an object element', { labels: 'bug' }, { labels: [{ name: 'bug' }] }, false],
  ['nested filter against array of objects: one element matches', { labels: { name: 'bug' } }, { labels: [{ name: 'ui' }, { name: 'bug' }] }, true],
  ['nested filter against array of objects: no element matches', { labels: { name: 'bug' } }, { labels: [{ name: 'ui' }] }, false],
  [
    'nested filter: all keys must hold in the same element',
    { items: { sku: 'A', qty: 2 } },
    { items: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: 2 }] },
    false,
  ],
  ['nested filter: same element holds all keys', { items: { sku: 'A', qty: 2 } }, { items: [{ sku: 'B', qty: 1 }, { sku: 'A', qty: 2 }] }, true],
  ['nested filter against an empty array', { items: { sku: 'A' } }, { items: [] }, false],
  ['nested exists: false against an empty array', { items: { sku: { exists: false } } }, { items: [] }, false],
  ['nested filter skips scalar elements', { items: { sku: 'A' } }, { items: ['A', { sku: 'A' }] }, true],
  ['nested filter does not flatten arrays of arrays', { items: { sku: 'A' } }, { items: [[{ sku: 'A' }]] }, false],
  ['array body: any element matches', { action: 'x' }, [{ action: 'y' }, { action: 'x' }], true],
  ['array body: no element matches', { action: 'x' }, [{ action: 'y' }], false],

  // Nested objects
  ['nested 3 levels: match', { a: { b: { c: 'deep' } } }, { a: { b: { c: 'deep', d: 1 } } }, true],
  ['nested 3 levels: different', { a: { b: { c: 'deep' } } }, { a: { b: { c: 'shallow' } } }, false],
  ['nested 3 levels: middle missing', { a: { b: { c: 'deep' } } }, { a: {} }, false],
  ['nested 3 levels: middle is a scalar', { a: { b: { c: 'deep' } } }, { a: { b: 'deep' } }, false],
  ['nested with operators inside', { pull_request: { draft: false, base: { ref: ['main', 'release'] } } }, { pull_request: { draft: false, base: { ref: 'main' } } }, true],
  ['nested object is a partial match', { repository: { name: 'x' } }, { repository: { name: 'x', id: 9 } }, true],
  ['scalar body with a non-empty filter', { a: 1 }, 'hello', false],
  ['null body with a non-empty filter', { a: 1 }, null, false],
  ['"gt" is a field name, not an operator', { amount: { gt: 100 } }, { amount: { gt: 100 } }, true],
  ['a dotted key is a literal field name', { 'pull_request.draft': false }, { pull_request: { draft: false } }, false],
  ['a dotted key matches a literal dotted field', { 'a.b': 1 }, { 'a.b': 1 }, true],
  ['__proto__ is an ordinary field', JSON.parse('{"__proto__": 1}') as PayloadFilter, JSON.parse('{"__proto__": 1}'), true],
  ['inherited names are not fields', { toString: { exists: true } }, {}, false],
];

describe('evaluateFilter: matching', () => {
  it.each(rows)('%s', (_what, filter, payload, matches) => {
    expect(evaluateFilter(filter, payload).matched).toBe(matches);
    expect(matchesFilter(filter, payload)).toBe(matches);
  });

  it('uses only filters that validation accepts', () => {
    for (const [what, filter] of rows) {
      if (filter === null || filter === undefined) continue;
      expect(validateFilter(filter), what).toMatchObject({ ok: true });
    }
  });
});

const check = (path: string, passed: boolean, expected: string, actual: string, reason: string): FilterCheck => ({ path, passed, expected, actual, reason });

describe('evaluateFilter: explanations', () => {
  it('gives no checks when there is no filter or an empty one', () => {
    expect(evaluateFilter(null, {})).toEqual({ matched: true, checks: [] });
    expect(evaluateFilter({}, {})).toEqual({ matched: true, checks: [] });
  });

  it('evaluates every key, in filter order, with a reason for each', () => {
    const result = evaluateFilter(
      { action: ['opened', 'reopened'], pull_request: { draft: false, base: { ref: 'main' } }, sender: { type: { not_in: ['Bot'] } }, label: { exists: false } },
      { action: 'closed', pull_request: { base: { ref: 'main' } }, sender: { type: 'User' }, label: null },
    );
    expect(result.matched).toBe(false);
    expect(result.checks).toEqual([
      check('action', false, 'one of ["opened","reopened"]', '"closed"', 'not in the list'),
      check('pull_request.draft', false, 'false', 'missing', 'the field is missing'),
      check('pull_request.base.ref', true, '"main"', '"main"', 'equal'),
      check('sender.type', true, 'none of ["Bot"]', '"User"', 'not in the excluded list'),
      check('label', false, 'missing', 'null', 'the field is present'),
    ]);
    expect(result.checks.map(describeCheck)[0]).toBe('path "action": expected one of ["opened","reopened"], got "closed" (not in the list)');
  });

  it.each<[string, PayloadFilter, unknown, Omit<FilterCheck, 'path'> & { path?: string }]>([
    ['equal', { a: 'x' }, { a: 'x' }, { passed: true, expected: '"x"', actual: '"x"', reason: 'equal' }],
    ['different value', { a: 'x' }, { a: 'y' }, { passed: false, expected: '"x"', actual: '"y"', reason: 'different value' }],
    ['1 vs "1"', { a: 1 }, { a: '1' }, { passed: false, expected: '1', actual: '"1"', reason: 'got a string, the filter has a number' }],
    ['true vs "true"', { a: true }, { a: 'true' }, { passed: false, expected: 'true', actual: '"true"', reason: 'got a string, the filter has a boolean' }],
    ['null vs missing', { a: null }, {}, { passed: false, expected: 'null', actual: 'missing', reason: 'the field is missing' }],
    ['scalar vs object', { a: 'x' }, { a: { b: 1 } }, { passed: false, expected: '"x"', actual: '{"b":1}', reason: 'got an object, the filter has a string' }],
    ['in, type hint', { a: ['1'] }, { a: 1 }, { passed: false, expected: 'one of ["1"]', actual: '1', reason: 'not in the list; no value in the list is a number' }],
    ['in, passed', { a: { in: [1, 2] } }, { a: 2 }, { passed: true, expected: 'one of [1,2]', actual: '2', reason: 'in the list' }],
    ['not_in, listed', { a: { not_in: ['x'] } }, { a: 'x' }, { passed: false, expected: 'none of ["x"]', actual: '"x"', reason: 'in the excluded list' }],
    [
      'not_in, missing',
      { a: { not_in: ['x'] } },
      {},
      { passed: false, expected: 'none of ["x"]', actual: 'missing', reason: 'the field is missing; "not_in" needs the field to be present' },
    ],
    ['exists true, null', { a: { exists: true } }, { a: null }, { passed: true, expected: 'present', actual: 'null', reason: 'present' }],
    ['exists true, missing', { a: { exists: true } }, {}, { passed: false, expected: 'present', actual: 'missing', reason: 'the field is missing' }],
    ['exists false, missing', { a: { exists: false } }, {}, { passed: true, expected: 'missing', actual: 'missing', reason: 'the field is missing' }],
    ['array, element equal', { a: 'bug' }, { a: ['ui', 'bug'] }, { passed: true, expected: '"bug"', actual: '["ui","bug"]', reason: 'element 1 is equal' }],
    ['array, no element', { a: 'bug' }, { a: ['ui'] }, { passed: false, expected: '"bug"', actual: '["ui"]', reason: 'no element is equal' }],
    ['array, empty', { a: ['bug'] }, { a: [] }, { passed: false, expected: 'one of ["bug"]', actual: '[]', reason: 'the array is empty' }],
    ['array, in', { a: { in: ['bug'] } }, { a: ['ui', 'bug'] }, { passed: true, expected: 'one of ["bug"]', actual: '["ui","bug"]', reason: 'element 1 is in the list' }],
    ['array, not_in', { a: { not_in: ['x'] } }, { a: ['y', 'x'] }, { passed: false, expected: 'none of ["x"]', actual: '["y","x"]', reason: 'element 1 is in the excluded list' }],
    ['array, not_in passes', { a: { not_in: ['x'] } }, { a: ['y'] }, { passed: true, expected: 'none of ["x"]', actual: '["y"]', reason: 'no element is in the excluded list' }],
    ['array, not_in empty', { a: { not_in: ['x'] } }, { a: [] }, { passed: true, expected: 'none of ["x"]', actual: '[]', reason: 'the array is empty' }],
    ['parent missing', { a: { b: { c: 1 } } }, {}, { path: 'a.b.c', passed: false, expected: '1', actual: 'missing', reason: '"a" is missing' }],
    ['middle missing', { a: { b: { c: 1 } } }, { a: {} }, { path: 'a.b.c', passed: false, expected: '1', actual: 'missing', reason: '"a.b" is missing' }],
    ['parent not an object', { a: { b: 1 } }, { a: 'x' }, { path: 'a.b', passed: false, expected: '1', actual: 'missing', reason: '"a" is a string, not an object' }],
    ['parent null', { a: { b: { exists: false } } }, { a: null }, { path: 'a.b', passed: false, expected: 'missing', actual: 'missing', reason: '"a" is null, not an object' }],
    ['body not an object', { a: 1 }, 7, { passed: false, expected: '1', actual: 'missing', reason: 'the body is a number, not an object' }],
    ['empty array of objects', { a: { b: 1 } }, { a: [] }, { path: 'a.b', passed: false, expected: '1', actual: 'missing', reason: '"a" is an empty array' }],
    ['element that is an array', { a: { b: 1 } }, { a: [[]] }, { path: 'a[0].b', passed: false, expected: '1', actual: 'missing', reason: '"a[0]" is an array, not an object' }],
  ])('reason: %s', (_what, filter, payload, expected) => {
    const { checks } = evaluateFilter(filter, payload);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toEqual({ path: 'a', ...expected });
  });

  it('shows the matching element of an array of objects', () => {
    const result = evaluateFilter({ items: { sku: 'A', qty: 2 } }, { items: [{ sku: 'B', qty: 2 }, { sku: 'A', qty: 2 }] });
    expect(result).toEqual({
      matched: true,
      checks: [check('items[1].sku', true, '"A"', '"A"', 'equal'), check('items[1].qty', true, '2', '2', 'equal')],
    });
  });

  it('shows the closest element when none matches', () => {
    const result = evaluateFilter({ items: { sku: 'A', qty: 2 } }, { items: [{ sku: 'C' }, { sku: 'B', qty: 2 }, { sku: 'D' }] });
    expect(result).toEqual({
      matched: false,
      checks: [
        check('items[1].sku', false, '"A"', '"B"', 'different value; no element of "items" matches every condition, this one comes closest'),
        check('items[1].qty', true, '2', '2', 'equal'),
      ],
    });
  });

  it('names the element of an array body', () => {
    expect(evaluateFilter({ action: 'x' }, [{ action: 'y' }, { action: 'x' }]).checks).toEqual([check('[1].action', true, '"x"', '"x"', 'equal')]);
  });

  it('keeps going after a failure so the explanation is complete', () => {
    const { checks } = evaluateFilter({ a: 1, b: 2, c: { d: 3 }, e: { exists: true } }, { b: 2, c: { d: 4 }, e: 0 });
    expect(checks.map((c) => [c.path, c.passed])).toEqual([
      ['a', false],
      ['b', true],
      ['c.d', false],
      ['e', true],
    ]);
  });

  it('shortens long payload values to about 120 characters', () => {
    const big = { text: 'x'.repeat(10_000), list: Array.from({ length: 10_000 }, (_, i) => i) };
    const { checks } = evaluateFilter({ big: 'small' }, { big });
    const actual = checks[0]?.actual ?? '';
    expect(actual.length).toBe(120);
    expect(actual.startsWith('{"text":"xxx')).toBe(true);
    expect(actual.endsWith('…')).toBe(true);
    const short = evaluateFilter({ s: 'a' }, { s: 'y'.repeat(119) }).checks[0]?.actual ?? '';
    expect(short).toBe(`"${'y'.repeat(118)}…`);
    expect(evaluateFilter({ s: 'a' }, { s: 'y'.repeat(118) }).checks[0]?.actual).toBe(`"${'y'.repeat(118)}"`);
  });

  it('renders paths for keys with dots or spaces unambiguously', () => {
    expect(evaluateFilter({ 'a.b': { 'c d': 1 } }, {}).checks[0]?.path).toBe('["a.b"]["c d"]');
  });
});

describe('evaluateFilter: filters that were never validated fail closed', () => {
  it.each<[string, unknown]>([
    ['two operators', { a: { in: [1], not_in: [2] } }],
    ['operator beside a field', { a: { in: [1], b: 2 } }],
    ['in without a list', { a: { in: 'x' } }],
    ['empty in', { a: { in: [] } }],
    ['object inside a list', { a: [{ b: 1 }] }],
    ['exists not a boolean', { a: { exists: 'yes' } }],
    ['empty nested object', { a: {} }],
    ['undefined value', { a: undefined }],
  ])('%s', (_what, filter) => {
    const result = evaluateFilter(filter as PayloadFilter, { a: 1, b: 2 });
    expect(result.matched).toBe(false);
    expect(result.checks).toEqual([check('a', false, 'a valid condition', '1', 'this condition is not valid; save the filter again to see what to fix')]);
    expect(matchesFilter(filter as PayloadFilter, { a: 1 })).toBe(false);
  });

  it('refuses a filter that is not an object', () => {
    expect(evaluateFilter([] as unknown as PayloadFilter, {}).matched).toBe(false);
    expect(matchesFilter('x' as unknown as PayloadFilter, {})).toBe(false);
  });
});
