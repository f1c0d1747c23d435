import { describe, expect, it } from 'vitest';
import { buildCatalogue, countEventTypes, MAX_CATALOGUE_PATHS, presenceText, TOP_EVENT_TYPES } from './catalogue';

const field = (catalogue: ReturnType<typeof buildCatalogue>, path: string) => catalogue.fields.find((f) => f.path === path);

describe('buildCatalogue', () => {
  it('lists each path with its types, presence and top values counted per delivery', () => {
    const catalogue = buildCatalogue([
      { action: 'opened', pull_request: { draft: false, number: 1 } },
      { action: 'closed', pull_request: { draft: true, number: 1.0 } },
      { action: 'opened', pull_request: null },
      { action: 7 },
    ]);
    expect(catalogue.sampled).toBe(4);
    expect(field(catalogue, 'action')).toEqual({
      path: 'action',
      keys: ['action'],
      types: ['number', 'string'],
      present: 4,
      values: [
        { value: 'opened', count: 2 },
        { value: 'closed', count: 1 },
        { value: 7, count: 1 },
      ],
    });
    expect(field(catalogue, 'pull_request')?.types).toEqual(['null', 'object']);
    expect(field(catalogue, 'pull_request')?.values).toEqual([{ value: null, count: 1 }]);
    // 1 and 1.0 are the same number to a filter.
    expect(field(catalogue, 'pull_request.number')?.values).toEqual([{ value: 1, count: 2 }]);
    expect(field(catalogue, 'pull_request.draft')?.present).toBe(2);
  });

  it('summarises arrays by element and counts a value once per delivery', () => {
    const catalogue = buildCatalogue([{ items: [{ sku: 'A-1' }, { sku: 'A-1' }, { sku: 'B-7', qty: 2 }], labels: ['bug', 'ui'] }, { items: [] }]);
    expect(catalogue.fields.map((f) => f.path)).toEqual(['items', 'items[]', 'items[].sku', 'items[].qty', 'labels', 'labels[]']);
    expect(field(catalogue, 'items[].sku')).toMatchObject({ keys: ['items', 'sku'], present: 1, values: [{ value: 'A-1', count: 1 }, { value: 'B-7', count: 1 }] });
    expect(field(catalogue, 'items')?.present).toBe(2);
    expect(field(catalogue, 'labels[]')?.keys).toEqual(['labels']);
  });

  it('never keeps values of fields whose names look like secrets, nor of long strings', () => {
    const catalogue = buildCatalogue([{ api_key: 'sk_live_1', auth: { password: 'hunter2', user: 'ana' }, client_secret: { value: 'x' }, note: 'x'.repeat(81) }]);
    expect(field(catalogue, 'api_key')).toMatchObject({ types: ['string'], values: null });
    expect(field(catalogue, 'auth.password')?.values).toBeNull();
    expect(field(catalogue, 'auth.user')?.values).toEqual([{ value: 'ana', count: 1 }]);
    // Under a secret-looking name, nested fields are hidden too.
    expect(field(catalogue, 'client_secret.value')?.values).toBeNull();
    expect(field(catalogue, 'note')?.values).toEqual([]);
    expect(JSON.stringify(catalogue)).not.toMatch(/sk_live_1|hunter2/);
  });

  it('quotes keys that would make the path ambiguous', () => {
    const catalogue = buildCatalogue([{ 'a.b': { 'c d': 1 } }]);
    expect(catalogue.fields.map((f) => f.path)).toEqual(['["a.b"]', '["a.b"]["c d"]']);
    expect(field(catalogue, '["a.b"]["c d"]')?.keys).toEqual(['a.b', 'c d']);
  });

  it(`keeps at most ${MAX_CATALOGUE_PATHS} paths and says so`, () => {
    const body = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}`, i]));
    const catalogue = buildCatalogue([body]);
    expect(catalogue.fields).toHaveLength(MAX_CATALOGUE_PATHS);
    expect(catalogue.truncated).toBe(true);
    expect(buildCatalogue([{ a: 1 }]).truncated).toBe(false);
  });

  it('reads presence in whole percent', () => {
    expect(presenceText(37, 100)).toBe('37%');
    expect(presenceText(1, 500)).toBe('<1%');
    expect(presenceText(499, 500)).toBe('99%');
    expect(presenceText(0, 0)).toBe('0%');
  });
});

describe('the catalogue’s event types', () => {
  it('counts the sample’s types, most frequent first, leaving out deliveries without one', () => {
    const catalogue = buildCatalogue([{}, {}, {}, {}, {}], ['push', 'pull_request.opened', null, 'push', 'issues.opened']);
    expect(catalogue.eventTypes).toEqual([
      { type: 'push', count: 2 },
      { type: 'issues.opened', count: 1 },
      { type: 'pull_request.opened', count: 1 },
    ]);
    expect(buildCatalogue([{}]).eventTypes).toEqual([]);
    expect(countEventTypes(Array.from({ length: TOP_EVENT_TYPES + 5 }, (_, i) => `t${i}`))).toHaveLength(TOP_EVENT_TYPES);
  });
});
