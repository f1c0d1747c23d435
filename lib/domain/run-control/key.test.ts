import { describe, expect, it } from 'vitest';
import { MAX_KEY_PART_LENGTH, runControlSchema } from '@/lib/domain/run-control/config';
import { canonicalJson, compileKey, groupOf, MISSING_PART, WHOLE_AUTOMATION, type KeyFacts } from '@/lib/domain/run-control/key';
import { keyParts } from '@/lib/domain/run-control/config';
import { parseKeyPart } from '@/lib/domain/run-control/key-syntax';

const facts: KeyFacts = {
  body: { repository: { full_name: 'acme/web' }, pull_request: { number: 42 }, 'a.b': { c: true }, commits: [{ id: 'c1' }, { id: 'c2' }], nothing: null },
  eventType: 'pull_request.synchronize',
  headers: { 'x-tenant': 'acme' },
};
const group = (key: string | string[] | undefined, input = facts) => groupOf(compileKey({ key }), input);

describe('key parts', () => {
  it('reads payload paths in the field catalogue notation, $event and $header', () => {
    expect(parseKeyPart('pull_request.number')).toEqual({ ok: true, part: { kind: 'path', path: ['pull_request', 'number'] } });
    expect(parseKeyPart('["a.b"].c')).toEqual({ ok: true, part: { kind: 'path', path: ['a.b', 'c'] } });
    expect(parseKeyPart('commits[1].id')).toEqual({ ok: true, part: { kind: 'path', path: ['commits', 1, 'id'] } });
    expect(parseKeyPart('x["$y"]')).toEqual({ ok: true, part: { kind: 'path', path: ['x', '$y'] } });
    expect(parseKeyPart('$event')).toEqual({ ok: true, part: { kind: 'event' } });
    expect(parseKeyPart('$header.X-Tenant')).toEqual({ ok: true, part: { kind: 'header', name: 'x-tenant' } });
  });

  it('refuses what it cannot read, and says how to write it', () => {
    expect(parseKeyPart('items[].sku')).toMatchObject({ ok: false, message: expect.stringContaining('name an element by its position') });
    expect(parseKeyPart('a..b')).toMatchObject({ ok: false, message: expect.stringContaining('a dot must be followed by a field name') });
    expect(parseKeyPart('a["b')).toMatchObject({ ok: false, message: expect.stringContaining('quoted field name') });
    expect(parseKeyPart('$body.x')).toMatchObject({ ok: false, message: expect.stringContaining('use "$event", "$header.<name>"') });
    expect(parseKeyPart('$header.x y')).toMatchObject({ ok: false, message: expect.stringContaining('is not a header name') });
    expect(parseKeyPart(Array.from({ length: 11 }, () => 'a').join('.'))).toMatchObject({ ok: false, message: expect.stringContaining('at most 10 steps') });
  });

  it('refuses headers the log stores redacted, in the header filter\'s words', () => {
    expect(parseKeyPart('$header.Authorization')).toEqual({
      ok: false,
      message: expect.stringMatching(/^"authorization" cannot be part of a key: its name suggests a credential .* the key would only ever see "\[redacted\]"$/),
    });
    expect(parseKeyPart('$header.x-hub-signature-256')).toMatchObject({ ok: false });
  });

  it('validates every part inside the settings\' schema', () => {
    const result = runControlSchema.safeParse({ key: ['repository.full_name', '$header.cookie'], concurrency: {} });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([expect.stringContaining('"cookie" cannot be part of a key')]);
    expect(runControlSchema.safeParse({ key: ['repository.full_name', 'pull_request.number'], concurrency: {} }).success).toBe(true);
  });
});

describe('groups', () => {
  it('is the values as canonical JSON, shown without brackets', () => {
    expect(group(['repository.full_name', 'pull_request.number'])).toEqual({ key: '["acme/web",42]', keyText: '"acme/web", 42' });
    expect(group('$event')).toEqual({ key: '["pull_request.synchronize"]', keyText: '"pull_request.synchronize"' });
    expect(group(['$header.x-tenant', 'commits[1].id'])).toEqual({ key: '["acme","c2"]', keyText: '"acme", "c2"' });
    expect(group('["a.b"]')).toEqual({ key: '[{"c":true}]', keyText: '{"c":true}' });
  });

  it('puts equal values in one group whatever the order of their object keys', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    const one = group('x', { ...facts, body: { x: { b: 1, a: 2 } } });
    const two = group('x', { ...facts, body: { x: { a: 2, b: 1 } } });
    expect(one).toEqual(two);
  });

  it('counts a value nested deeper than 64 levels as a missing part, where 5,000 levels overflowed the stack', () => {
    const deep = JSON.parse(`${'['.repeat(5_000)}1${']'.repeat(5_000)}`) as unknown;
    expect(group('customer', { ...facts, body: { customer: deep } })).toBe(MISSING_PART);
    const shallow = JSON.parse(`${'['.repeat(10)}1${']'.repeat(10)}`) as unknown;
    expect(group('customer', { ...facts, body: { customer: shallow } }).key).toBe(`[${'['.repeat(10)}1${']'.repeat(10)}]`);
  });

  it('is one group per automation without a key, and one for deliveries that lack a part', () => {
    expect(group(undefined)).toBe(WHOLE_AUTOMATION);
    expect(group(['repository.full_name', 'issue.number'])).toBe(MISSING_PART);
    expect(group('$header.x-other')).toBe(MISSING_PART);
    expect(group('$event', { ...facts, eventType: null })).toBe(MISSING_PART);
    expect(group('commits[5].id')).toBe(MISSING_PART);
    // null is a value, not a missing part.
    expect(group('nothing')).toEqual({ key: '[null]', keyText: 'null' });
  });

  it('puts every delivery in the missing part\'s group when a saved key no longer reads, rather than fail the ingress', () => {
    expect(group('$body.x')).toBe(MISSING_PART);
    expect(groupOf(compileKey({ key: [42] as unknown as string[] }), facts)).toBe(MISSING_PART);
    // Not even a list or a text: null, a number, an object.
    for (const key of [null, 42, { path: 'x' }]) expect(groupOf(compileKey({ key: key as unknown as string }), facts)).toBe(MISSING_PART);
    for (const key of [null, 42, { path: 'x' }]) expect(keyParts({ key: key as unknown as string })).toEqual([]);
  });

  it('bounds the key: a long value becomes a digest, and its text is cut', () => {
    const long = 'x'.repeat(MAX_KEY_PART_LENGTH * 3);
    const bounded = group('title', { ...facts, body: { title: long } });
    expect(bounded.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(bounded.keyText).toHaveLength(MAX_KEY_PART_LENGTH);
    expect(bounded.keyText.endsWith('…')).toBe(true);
    expect(group('title', { ...facts, body: { title: `${long}y` } }).key).not.toBe(bounded.key);
  });
});
