import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '@/lib/domain/fields/catalogue';
import { cursorContext, filterCompletions } from './filter-completion';

/** The context at the `|` in `text`. */
const at = (text: string) => cursorContext(text.replace('|', ''), text.indexOf('|'));

const catalogue = buildCatalogue([
  { action: 'opened', pull_request: { draft: false, base: { ref: 'main' } }, items: [{ sku: 'A-1' }], labels: ['bug'] },
  { action: 'closed', pull_request: { draft: true, base: { ref: 'dev' } }, items: [{ sku: 'B-7' }], labels: ['ui', 'bug'] },
  { action: 'opened' },
]);

describe('cursorContext', () => {
  it('finds field names at the cursor’s nesting level', () => {
    expect(at('{"act|')).toEqual({ kind: 'key', path: [], from: 1, prefix: 'act' });
    expect(at('{"act|"}')).toEqual({ kind: 'key', path: [], from: 1, prefix: 'act' });
    expect(at('{|')).toEqual({ kind: 'key', path: [], from: 1, prefix: '' });
    expect(at('{"pull_request": {"draft": false, "ba|')).toEqual({ kind: 'key', path: ['pull_request'], from: 34, prefix: 'ba' });
    expect(at('{"pull_request": {"base": {|}}}')).toMatchObject({ kind: 'key', path: ['pull_request', 'base'] });
    expect(at('{"a": 1, |')).toMatchObject({ kind: 'key', path: [] });
  });

  it('finds values of a field, inside operators too', () => {
    expect(at('{"action": |')).toEqual({ kind: 'value', path: ['action'], from: 11, prefix: '', operator: null });
    expect(at('{"action": "op|')).toEqual({ kind: 'value', path: ['action'], from: 11, prefix: '"op', operator: null });
    expect(at('{"action": ["opened", |')).toMatchObject({ kind: 'value', path: ['action'], operator: null });
    expect(at('{"action": {"in": ["opened", |')).toMatchObject({ kind: 'value', path: ['action'], operator: 'in' });
    expect(at('{"a": {"exists": t|')).toEqual({ kind: 'value', path: ['a'], from: 17, prefix: 't', operator: 'exists' });
  });

  it('offers nothing after a finished value or outside the filter', () => {
    expect(at('{"action": "opened" |')).toBeNull();
    expect(at('|')).toBeNull();
    expect(at('{"action": "opened"}|')).toBeNull();
    expect(at('{"action"|')).toBeNull();
  });
});

describe('filterCompletions', () => {
  it('offers the fields at the level with their types, presence and values', () => {
    const options = filterCompletions(at('{"act|')!, catalogue);
    expect(options.map((o) => o.label)).toEqual(['action', 'pull_request', 'items', 'labels']);
    expect(options[0]).toMatchObject({ insert: '"action": ', detail: 'string · 100% · "opened", "closed"', info: '"opened" ×2, "closed" ×1' });
    expect(options.find((o) => o.label === 'pull_request')).toMatchObject({ detail: 'object · 66%', info: undefined });
    // An array of scalars is one field whose values are its elements'.
    expect(options.find((o) => o.label === 'labels')).toMatchObject({ detail: 'array | string · 66% · "bug", "ui"', info: '"bug" ×2, "ui" ×1' });
  });

  it('offers the fields under arrays by element, and the operators under a field', () => {
    const labels = filterCompletions(at('{"items": {|')!, catalogue).map((o) => o.label);
    expect(labels).toEqual(['sku', 'in', 'not_in', 'exists']);
  });

  it('offers a field’s values and the operators after its colon', () => {
    const options = filterCompletions(at('{"action": |')!, catalogue);
    expect(options.map((o) => o.label)).toEqual(['"opened"', '"closed"', '{"in": [...]}', '{"not_in": [...]}', '{"exists": true}', '{"exists": false}']);
    expect(options[2]!.insert).toBe('{"in": ["opened", "closed"]}');
    expect(filterCompletions(at('{"action": {"in": [|')!, catalogue).map((o) => o.label)).toEqual(['"opened"', '"closed"']);
    expect(filterCompletions(at('{"action": {"exists": |')!, catalogue).map((o) => o.label)).toEqual(['true', 'false']);
  });

  it('still offers the operators without a catalogue', () => {
    expect(filterCompletions(at('{"x": {|')!, null).map((o) => o.label)).toEqual(['in', 'not_in', 'exists']);
  });
});
