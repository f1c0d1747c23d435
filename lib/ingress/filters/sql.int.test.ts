import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evaluateFilter,
  evaluateTrigger,
  matchesFilter,
  matchesTrigger,
  validateEventPatterns,
  validateFilter,
  validateHeaderFilter,
  type FilterScalar,
  type HeaderCondition,
  type HeaderFilter,
  type PayloadFilter,
  type TriggerFilter,
} from '@/lib/ingress/filters';
import { eventTypesToSql } from '@/lib/ingress/filters/events';
import { filterToSql, jsonbCopyOf, JSONB_COPY_MAX_DEPTH } from '@/lib/ingress/filters/sql';
import { triggerToSql } from '@/lib/ingress/filters/trigger';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';

// The SQL translation decides exactly as the TypeScript evaluator, proven on
// random filters and payloads (fast-check). Keys and values come from small
// vocabularies so filters and payloads meet often: matches, misses, missing
// keys, arrays, nested objects, null, numbers written as 1, 1.0 or 1e0,
// -0, large numbers, unicode, keys with dots and quotes. Cases are batched,
// one query per run of BATCH cases, so 1,000+ cases take seconds.

const RUNS = 8;
const BATCH = 130; // 8 × 130 = 1,040 cases per database
const RUN_OPTIONS: fc.Parameters<[unknown]> = {
  numRuns: RUNS,
  endOnFailure: true,
  // Name the disagreeing cases and the seed, not the whole batch.
  asyncReporter: async (details) => {
    if (details.failed) throw new Error(`seed ${details.seed}: ${String(details.errorInstance)}`);
  },
};

// Keys and strings jsonb cannot hold (U+0000, lone surrogates) are rare: a
// body with one has no copy and is left out of the SQL comparison.
const commonKey = fc.constantFrom('a', 'b', 'c', 'a.b', 'x"y', "it's", '', 'ü', '😀', '__proto__', 'toString', 'k'.repeat(1_000));
const rareKey = fc.constantFrom('k\u0000', '\ud800');
const filterKey = fc.oneof({ weight: 20, arbitrary: commonKey }, { weight: 1, arbitrary: rareKey });
const payloadKey = fc.oneof(
  { weight: 60, arbitrary: commonKey },
  { weight: 4, arbitrary: fc.constantFrom('in', 'exists', 'not_in') },
  { weight: 1, arbitrary: rareKey },
  // Longer than any filter key: left out of the copy.
  { weight: 1, arbitrary: fc.constant('k'.repeat(1_001)) },
);

const strings = ['', 'a', 'b', 'A', 'ü', 'u\u0308', '😀', 'null', 'true', '1', "it's", 'x"y', '\\', 'a.b'];
// At and past the longest string a filter may hold (1,000 characters, counted in code points).
const longStrings = ['x'.repeat(1_000), 'x'.repeat(1_001), '😀'.repeat(600), '😀'.repeat(1_000), '😀'.repeat(1_001)];
const rareStrings = ['a\u0000', '\ud800x', '\udc00'];
const numbers = [0, -0, 1, -1, 1.5, 100, 1e21, 12345678901234567000, 0.1, 0.30000000000000004, 5e-324, 1.7976931348623157e308];

const filterScalar: fc.Arbitrary<FilterScalar> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...strings) },
  { weight: 1, arbitrary: fc.constantFrom(...rareStrings) },
  { weight: 1, arbitrary: fc.constantFrom(longStrings[0]!, longStrings[2]!) },
  { weight: 5, arbitrary: fc.constantFrom(...numbers) },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constant(null) },
);
const filterList = fc.array(filterScalar, { minLength: 1, maxLength: 4 });

const fieldsOf = (entries: [string, unknown][]) => Object.fromEntries(entries) as Record<string, unknown>;

const { filter: filterArb } = fc.letrec<{ condition: unknown; fields: Record<string, unknown>; filter: PayloadFilter }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: filterScalar },
    { weight: 2, arbitrary: filterList },
    { weight: 2, arbitrary: filterList.map((list) => ({ in: list })) },
    { weight: 2, arbitrary: filterList.map((list) => ({ not_in: list })) },
    { weight: 2, arbitrary: fc.boolean().map((exists) => ({ exists })) },
    { weight: 3, arbitrary: tie('fields') },
  ),
  fields: fc.uniqueArray(fc.tuple(filterKey, tie('condition')), { minLength: 1, maxLength: 3, selector: ([key]) => key }).map(fieldsOf),
  filter: fc.oneof({ weight: 12, arbitrary: tie('fields') }, { weight: 1, arbitrary: fc.constant({}) }) as fc.Arbitrary<PayloadFilter>,
}));

// Payloads are JSON text, so numbers can be written as the sender wrote them.
type Node = { raw: string } | { list: Node[] } | { entries: [string, Node][] };

const numberTokens = ['0', '-0', '1', '1.0', '1e0', '10E-1', '-1', '1.5', '100', '1e2', '1e21', '12345678901234567890', '12345678901234567000', '0.1', '0.30000000000000004', '5e-324'];

const { node: nodeArb } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 40, arbitrary: fc.constantFrom(...strings).map((s) => ({ raw: JSON.stringify(s) })) },
    { weight: 40, arbitrary: fc.constantFrom(...numberTokens).map((raw) => ({ raw })) },
    { weight: 4, arbitrary: fc.constantFrom(...longStrings).map((s) => ({ raw: JSON.stringify(s) })) },
    { weight: 1, arbitrary: fc.constantFrom(...rareStrings.map((s) => JSON.stringify(s)), '1e400', '-1e400').map((raw) => ({ raw })) },
    { weight: 20, arbitrary: fc.constantFrom('true', 'false', 'null').map((raw) => ({ raw })) },
    { weight: 30, arbitrary: fc.array(tie('node'), { maxLength: 4 }).map((list) => ({ list })) },
    // Entries, not an object: duplicate keys are kept as a sender may send them (the last one wins).
    { weight: 50, arbitrary: fc.array(fc.tuple(payloadKey, tie('node')), { maxLength: 5 }).map((entries) => ({ entries })) },
  ),
}));

function serialize(node: Node): string {
  if ('raw' in node) return node.raw;
  if ('list' in node) return `[${node.list.map(serialize).join(',')}]`;
  return `{${node.entries.map(([key, value]) => `${JSON.stringify(key)}: ${serialize(value)}`).join(', ')}}`;
}

// Bodies are mostly objects, as webhook payloads are.
const bodyArb = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.tuple(payloadKey, nodeArb), { maxLength: 6 }).map((entries) => serialize({ entries })) },
  { weight: 1, arbitrary: nodeArb.map(serialize) },
);

type Case = { filter: PayloadFilter; body: string };
// Only filters that can be saved (a few with long strings pass the 10 KB limit).
const caseArb: fc.Arbitrary<Case> = fc.record({ filter: filterArb.filter((filter) => validateFilter(filter).ok), body: bodyArb });

describe('jsonbCopyOf', () => {
  it('copies the parsed body, so numbers are the doubles the evaluator sees', () => {
    expect(jsonbCopyOf('{"n": 1.0, "big": 12345678901234567890, "z": -0}')).toBe('{"n":1,"big":12345678901234567000,"z":0}');
    expect(jsonbCopyOf('[1, "ü", null]')).toBe('[1,"ü",null]');
  });

  it('leaves out what no filter can tell apart: strings and keys longer than any filter string', () => {
    const long = 'x'.repeat(1_001);
    expect(jsonbCopyOf(JSON.stringify({ s: long, t: 'x'.repeat(1_000), list: [long, 1], [long]: 1, k: { [long]: [long] } }))).toBe(
      JSON.stringify({ s: [], t: 'x'.repeat(1_000), list: [[], 1], k: {} }),
    );
    expect(jsonbCopyOf(JSON.stringify('😀'.repeat(1_000)))).toBe(JSON.stringify('😀'.repeat(1_000)));
    expect(jsonbCopyOf(JSON.stringify(long))).toBe('[]');
  });

  it('gives no copy for what jsonb cannot hold', () => {
    expect(jsonbCopyOf('{"s": "a\\u0000b"}')).toBeNull();
    expect(jsonbCopyOf('{"a\\u0000": 1}')).toBeNull();
    expect(jsonbCopyOf('{"s": "\\ud800"}')).toBeNull();
    expect(jsonbCopyOf('{"n": 1e400}')).toBeNull();
    expect(jsonbCopyOf(`${'['.repeat(JSONB_COPY_MAX_DEPTH + 1)}${']'.repeat(JSONB_COPY_MAX_DEPTH + 1)}`)).toBeNull();
    expect(jsonbCopyOf(`${'['.repeat(60_000)}${']'.repeat(60_000)}`)).toBeNull();
    expect(jsonbCopyOf(`${'['.repeat(JSONB_COPY_MAX_DEPTH)}${']'.repeat(JSONB_COPY_MAX_DEPTH)}`)).not.toBeNull();
  });
});

describe('filterToSql', () => {
  it('is true for no filter and refuses a filter validation would refuse', () => {
    expect(filterToSql(null, 'b', [])).toBe('true');
    expect(filterToSql({}, 'b', [])).toBe('true');
    expect(() => filterToSql({ a: { in: [] } } as unknown as PayloadFilter, 'b', [])).toThrow(/validated/);
    expect(() => filterToSql({ a: { in: [1], b: 2 } } as unknown as PayloadFilter, 'b', [])).toThrow(/validated/);
  });

  it('binds every filter value and key as a parameter', () => {
    const params: unknown[] = [];
    const sql = filterToSql({ "it's": "'; DROP TABLE x; --" }, 'b', params);
    expect(sql).not.toContain('DROP');
    expect(params).toContain("it's");
  });
});

describe.each(testDatabaseKinds())('filterToSql agrees with the evaluator on %s', (kind) => {
  let database: TestDatabase;
  let cases = 0;
  let copied = 0;
  let matched = 0;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function decideInSql(batch: { filter: PayloadFilter; copy: string }[]): Promise<boolean[]> {
    const params: unknown[] = [];
    const selects = batch.map(({ filter, copy }, index) => {
      params.push(copy);
      const body = `$${params.length}::jsonb`;
      return `SELECT ${index} AS i, ${filterToSql(filter, 's.p', params)} AS m FROM (SELECT ${body} AS p) s`;
    });
    const rows = await database.prisma.$queryRawUnsafe<{ i: number; m: boolean }[]>(`${selects.join('\nUNION ALL\n')}`, ...params);
    const decided = new Array<boolean>(batch.length);
    for (const row of rows) decided[Number(row.i)] = row.m;
    return decided;
  }

  it(`decides ${RUNS * BATCH} random cases as the evaluator does`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const withCopies = batch.flatMap(({ filter, body }) => {
          const copy = jsonbCopyOf(body);
          return copy === null ? [] : [{ filter, body, copy }];
        });
        const decided = await decideInSql(withCopies);
        const wrong = withCopies.flatMap(({ filter, body }, index) => {
          const payload = JSON.parse(body) as unknown;
          const expected = matchesFilter(filter, payload);
          expect(evaluateFilter(filter, payload).matched).toBe(expected);
          return decided[index] === expected ? [] : [{ filter: JSON.stringify(filter), body, evaluator: expected, sql: decided[index] }];
        });
        cases += batch.length;
        copied += withCopies.length;
        matched += withCopies.filter(({ filter, body }) => matchesFilter(filter, JSON.parse(body))).length;
        expect(wrong).toEqual([]);
      }),
      RUN_OPTIONS,
    );
    expect(cases).toBeGreaterThanOrEqual(1_000);
    // The generators must exercise both outcomes, and most bodies must have a copy.
    expect(copied).toBeGreaterThan(cases * 0.7);
    expect(matched).toBeGreaterThan(copied * 0.05);
    expect(matched).toBeLessThan(copied * 0.9);
  });

  it.each<[string, PayloadFilter, string, boolean]>([
    ['1 equals 1.0', { n: 1 }, '{"n": 1.0}', true],
    ['1 does not equal "1"', { n: 1 }, '{"n": "1"}', false],
    ['-0 equals 0', { n: -0 }, '{"n": 0}', true],
    ['large numbers compare as doubles', { n: 12345678901234567000 }, '{"n": 12345678901234567890}', true],
    ['a dotted key is a literal field name', { 'a.b': 1 }, '{"a": {"b": 1}}', false],
    ['null does not match a missing key', { s: null }, '{}', false],
    ['exists: false under a missing parent', { pr: { merged_by: { exists: false } } }, '{}', true],
    ['exists: false under a null parent fails', { pr: { merged_by: { exists: false } } }, '{"pr": null}', false],
    ['not_in against an empty array', { labels: { not_in: ['wontfix'] } }, '{"labels": []}', true],
    ['a scalar does not look inside arrays of arrays', { m: 'a' }, '{"m": [["a"]]}', false],
    ['nested filter: all keys in the same element', { items: { sku: 'A', qty: 2 } }, '{"items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]}', false],
    ['array body: any element', { action: 'x' }, '[{"action": "y"}, {"action": "x"}]', true],
    ['a filter string jsonb cannot hold matches nothing', { s: 'a\u0000' }, '{"s": "a"}', false],
    ['... and not_in passes', { s: { not_in: ['a\u0000'] } }, '{"s": "a"}', true],
  ])('%s', async (_what, filter, body, expected) => {
    expect(matchesFilter(filter, JSON.parse(body))).toBe(expected);
    expect(await decideInSql([{ filter, copy: jsonbCopyOf(body)! }])).toEqual([expected]);
  });
});

// A trigger's event types and header filter (lib/ingress/filters/trigger.ts) beside
// the payload filter: random types (null included) against random patterns
// whose literal segments hold regular-expression characters, and random
// stored headers against random header filters, decided by triggerToSql as
// by matchesTrigger.
const typeSegments = ['push', 'pull_request', 'opened', 'closed', 'customer', 'subscription', 'created', 'a', 'b', '', 'x"y', "it's", 'a+b', '(a)', '[x]', '\\', 'a|b', '^a$', '.*', '?', '{1}', 'é', '😀', 'orders/create', 'a b', '%', '_'];
const patternSegments = [...typeSegments.filter((s) => s !== '' && s !== '.*'), '*', '*', '*'];
const eventTypeArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...typeSegments), { minLength: 1, maxLength: 4 }).map((s) => s.join('.')) },
);
const patternsArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 4, arbitrary: fc.uniqueArray(fc.array(fc.constantFrom(...patternSegments), { minLength: 1, maxLength: 3 }).map((s) => s.join('.')), { minLength: 1, maxLength: 4 }) },
);
const headerNames = ['x-tenant', 'x-env', 'content-type', 'x-missing'];
const headerValues = ['acme', 'beta', '', 'ACME', 'a,b', "it's", 'x"y', '😀', 'null', '1'];
const headersArb = fc.dictionary(fc.constantFrom(...headerNames.slice(0, 3)), fc.constantFrom(...headerValues), { maxKeys: 3 });
const headerValueList = fc.array(fc.constantFrom(...headerValues), { minLength: 1, maxLength: 3 });
const headerConditionArb: fc.Arbitrary<HeaderCondition> = fc.oneof(
  fc.constantFrom(...headerValues),
  headerValueList,
  headerValueList.map((list) => ({ in: list })),
  headerValueList.map((list) => ({ not_in: list })),
  fc.boolean().map((exists) => ({ exists })),
);
const headerFilterArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.dictionary(fc.constantFrom(...headerNames), headerConditionArb, { minKeys: 1, maxKeys: 2 }) as fc.Arbitrary<HeaderFilter> },
);
type TriggerCase = { filter: TriggerFilter; eventType: string | null; headers: Record<string, string>; body: string };
const triggerCaseArb: fc.Arbitrary<TriggerCase> = fc.record({
  filter: fc.record({
    events: patternsArb.filter((patterns) => patterns === null || validateEventPatterns(patterns).ok),
    headers: headerFilterArb.filter((filter) => filter === null || validateHeaderFilter(filter).ok),
    payload: fc.oneof(fc.constant(null), fc.constantFrom<PayloadFilter>({ action: 'opened' }, { action: { in: ['opened', 'closed'] } }, { n: { exists: true } })),
  }),
  eventType: eventTypeArb,
  headers: headersArb,
  body: fc.constantFrom('{"action": "opened"}', '{"action": "closed", "n": 1}', '{}'),
});

describe('eventTypesToSql', () => {
  it('binds the patterns as one regular expression and is true without a list', () => {
    const params: unknown[] = [];
    expect(eventTypesToSql(null, 't', params)).toBe('true');
    const sql = eventTypesToSql(["it's.*", 'a+b'], 't', params);
    expect(sql).not.toContain("it's");
    expect(params).toEqual(["(?:^it\\'s\\..*$|^a\\+b$)"]);
  });
});

describe.each(testDatabaseKinds())('triggerToSql agrees with matchesTrigger on %s', (kind) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function decideInSql(batch: TriggerCase[]): Promise<boolean[]> {
    const params: unknown[] = [];
    const selects = batch.map(({ filter, eventType, headers, body }, index) => {
      params.push(eventType, JSON.stringify(headers), jsonbCopyOf(body));
      const at = params.length;
      const columns = { eventType: 's.t', headers: 's.h', body: 's.b' };
      return `SELECT ${index} AS i, ${triggerToSql(filter, columns, params)} AS m FROM (SELECT $${at - 2}::text AS t, $${at - 1}::jsonb AS h, $${at}::jsonb AS b) s`;
    });
    const rows = await database.prisma.$queryRawUnsafe<{ i: number; m: boolean }[]>(selects.join('\nUNION ALL\n'), ...params);
    const decided = new Array<boolean>(batch.length);
    for (const row of rows) decided[Number(row.i)] = row.m;
    return decided;
  }

  it(`decides ${RUNS * BATCH} random types, patterns and headers as the evaluator does`, async () => {
    let cases = 0;
    let matched = 0;
    let typed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(triggerCaseArb, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const decided = await decideInSql(batch);
        const wrong = batch.flatMap((item, index) => {
          const facts = { eventType: item.eventType, headers: item.headers, body: JSON.parse(item.body) as unknown };
          const expected = matchesTrigger(item.filter, facts);
          expect(evaluateTrigger(item.filter, facts).matched).toBe(expected);
          if (expected) matched++;
          if (item.filter.events && expected) typed++;
          return decided[index] === expected ? [] : [{ ...item, evaluator: expected, sql: decided[index] }];
        });
        cases += batch.length;
        expect(wrong).toEqual([]);
      }),
      RUN_OPTIONS,
    );
    expect(cases).toBeGreaterThanOrEqual(1_000);
    // Both outcomes, and matches that passed an event type list. Over 400 samples of 1,040 cases,
    // matches were 49-93 (median 68, 6.5%) and typed matches 9 or more (median 18): the floors sit
    // well below the lowest, so only a generator that stopped producing matches fails them (a
    // floor of 5%, 52, failed on about 1 seed in 100).
    expect(matched).toBeGreaterThan(cases * 0.02);
    expect(matched).toBeLessThan(cases * 0.9);
    expect(typed).toBeGreaterThanOrEqual(3);
  });
});
