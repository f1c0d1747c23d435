import { describe, expect, it } from 'vitest';
import { matchesFilter } from './evaluate';
import { insertCondition } from './merge';
import { validateFilter } from './schema';

describe('insertCondition', () => {
  it('creates the nested condition in an empty filter', () => {
    expect(insertCondition(null, ['pull_request', 'base', 'ref'], 'main')).toEqual({ pull_request: { base: { ref: 'main' } } });
  });

  it('merges with what the filter has, without changing the original', () => {
    const filter = { action: 'opened', pull_request: { draft: false } };
    const merged = insertCondition(filter, ['pull_request', 'base', 'ref'], 'main');
    expect(merged).toEqual({ action: 'opened', pull_request: { draft: false, base: { ref: 'main' } } });
    expect(filter).toEqual({ action: 'opened', pull_request: { draft: false } });
  });

  it('widens a field’s condition to the allowed values', () => {
    expect(insertCondition({ action: 'opened' }, ['action'], 'reopened')).toEqual({ action: ['opened', 'reopened'] });
    expect(insertCondition({ action: ['opened'] }, ['action'], 'opened')).toEqual({ action: ['opened'] });
    expect(insertCondition({ action: { in: ['a'] } }, ['action'], 'b')).toEqual({ action: { in: ['a', 'b'] } });
    expect(insertCondition({ action: 'opened' }, ['action'], 'opened')).toEqual({ action: 'opened' });
    expect(insertCondition({ n: 1 }, ['n'], null)).toEqual({ n: [1, null] });
  });

  it('replaces presence conditions with the picked value', () => {
    expect(insertCondition({ a: { exists: true } }, ['a', 'b'], 1)).toEqual({ a: { b: 1 } });
    expect(insertCondition({ a: { not_in: ['x'] } }, ['a'], 'y')).toEqual({ a: 'y' });
  });

  it('gives a valid filter that matches the body the value came from', () => {
    const body = { action: 'opened', items: [{ sku: 'B-7' }, { sku: 'A-1' }], repository: { owner: { login: 'ana' } } };
    let filter = insertCondition(null, ['items', 'sku'], 'A-1');
    filter = insertCondition(filter, ['repository', 'owner', 'login'], 'ana');
    expect(validateFilter(filter).ok).toBe(true);
    expect(matchesFilter(filter, body)).toBe(true);
    expect(matchesFilter(filter, { ...body, items: [{ sku: 'C-3' }] })).toBe(false);
  });
});
