import { describe, expect, it } from 'vitest';
import { findUnsafeValue, refuseUnsafeBody, refuseUnsafeUrl } from '@/lib/platform/http/unsafe-input';
import { AppError } from '@/lib/platform/http/errors';

const refusal = (act: () => void) => {
  try {
    act();
  } catch (error) {
    return error instanceof AppError ? { status: error.status, fields: error.fields } : error;
  }
  return null;
};

describe('findUnsafeValue', () => {
  it('finds NUL characters, lone surrogates and inexact numbers, naming the dotted path', () => {
    expect(findUnsafeValue({ selection: { q: 'a\u0000b' } })).toEqual({ field: 'selection.q', problem: expect.stringContaining('NUL') });
    expect(findUnsafeValue({ triggers: [{}, { filter: { payload: { a: '\ud800' } } }] })).toEqual({ field: 'triggers.1.filter.payload.a', problem: expect.stringContaining('lone surrogate') });
    expect(findUnsafeValue({ limit: 2 ** 53 + 2 })).toEqual({ field: 'limit', problem: expect.stringContaining('2^53') });
    expect(findUnsafeValue({ limit: Infinity })?.field).toBe('limit');
    expect(findUnsafeValue({ 'a\u0000': 1 })?.field).toBe('a\\u0000');
    expect(findUnsafeValue('\u0000')?.field).toBe('body');
  });

  it('passes ordinary text, emoji (well-formed pairs) and exact numbers', () => {
    expect(findUnsafeValue({ name: 'déploiement 🚀', n: Number.MAX_SAFE_INTEGER, x: -0.5, list: [null, true, 'ok'] })).toBeNull();
  });

  it('walks a body nested 100,000 levels without overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}`);
    expect(findUnsafeValue(deep)?.problem).toContain('NUL');
  });
});

describe('the refusals', () => {
  it('a body: 422 naming the field', () => {
    expect(refusal(() => refuseUnsafeBody({ selection: { from: 'x\u0000' } }))).toEqual({ status: 422, fields: { 'selection.from': expect.stringContaining('NUL') } });
  });

  it('a URL: empty or unsafe path parameters and unsafe query values, by name', () => {
    const url = (query = '') => new URL(`http://localhost/api/v1/x${query}`);
    expect(refusal(() => refuseUnsafeUrl({ factory: 'acme', id: '' }, url()))).toEqual({ status: 422, fields: { id: expect.stringContaining('empty') } });
    expect(refusal(() => refuseUnsafeUrl({ id: 'a\u0000' }, url()))).toEqual({ status: 422, fields: { id: expect.stringContaining('NUL') } });
    expect(refusal(() => refuseUnsafeUrl({}, url('?q=%00abc')))).toEqual({ status: 422, fields: { q: expect.stringContaining('NUL') } });
    expect(refusal(() => refuseUnsafeUrl({ factory: 'acme' }, url('?q=blue&limit=5')))).toBeNull();
  });
});
