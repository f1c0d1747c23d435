import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, parseJsonTree } from '@/components/json-tree';

describe('parseJsonTree with a depth limit', () => {
  it('keeps a shallow document as a tree', () => {
    expect(parseJsonTree('{"a":[1,{"b":null}]}', MAX_DEPTH)).toEqual({
      kind: 'object',
      entries: [['a', { kind: 'array', items: [{ kind: 'number', raw: '1' }, { kind: 'object', entries: [['b', { kind: 'null' }]] }] }]],
    });
  });

  it('shows subtrees below the limit as their exact text, brackets in strings included', () => {
    const tree = parseJsonTree('{"a":{"b":{"c":"]}\\"[","d":[1]}},"e":2}', 2);
    expect(tree).toEqual({
      kind: 'object',
      entries: [
        ['a', { kind: 'object', entries: [['b', { kind: 'raw', text: '{"c":"]}\\"[","d":[1]}' }]] }],
        ['e', { kind: 'number', raw: '2' }],
      ],
    });
  });

  it('parses a value nested 100,000 levels deep without growing the stack', () => {
    const depth = 100_000;
    const text = `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
    let node = parseJsonTree(text, MAX_DEPTH);
    let levels = 0;
    while (node.kind === 'object' || node.kind === 'array') {
      node = node.kind === 'object' ? node.entries[0]![1] : node.items[0]!;
      levels++;
    }
    expect(levels).toBe(MAX_DEPTH);
    expect(node.kind).toBe('raw');
    // MAX_DEPTH levels are MAX_DEPTH / 2 '{"a":[' openings and as many ']}' closings around the raw subtree.
    expect((node as { text: string }).text).toBe(text.slice((MAX_DEPTH / 2) * 6, text.length - MAX_DEPTH));
  });

  it('still refuses unbalanced text', () => {
    expect(() => parseJsonTree('[[[1]]', 1)).toThrow(SyntaxError);
  });
});
