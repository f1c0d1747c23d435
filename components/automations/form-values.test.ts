import { describe, expect, it } from 'vitest';
import type { PayloadFilter } from '@/lib/ingress/filters';
import {
  explainJsonSyntax,
  formatFilter,
  formField,
  readConditionParam,
  readPayloadFilter,
  toTrigger,
  triggerFormSchema,
  triggerFormValues,
  triggerWithCondition,
  type TriggerFormValues,
} from './form-values';

describe('explainJsonSyntax', () => {
  it.each<[string, string, string | null]>([
    ['an object', '{"action": "opened"}', null],
    ['a list (valid JSON; the filter check says it is not an object)', '[1, 2]', null],
    ['a trailing comma', '{"a": 1,}', 'Not valid JSON at line 1, column 9: remove the comma before }.'],
    ['a trailing comma in a list', '{"a": [1, 2,]}', 'Not valid JSON at line 1, column 13: remove the comma before ].'],
    ['single quotes', "{'a': 1}", 'Not valid JSON at line 1, column 2: use double quotes (") around text and field names, not single quotes.'],
    ['a missing value', '{"a": }', 'Not valid JSON at line 1, column 7: a value is missing after the colon.'],
    ['a bare word', '{"a": opened}', 'Not valid JSON at line 1, column 7: put opened in double quotes ("opened"); only true, false and null go without them.'],
    ['a leading zero', '{"a": 01}', 'Not valid JSON at line 1, column 8: a number cannot start with 0 (write 1, not 01).'],
    ['a missing comma between fields', '{"a": 1 "b": 2}', 'Not valid JSON at line 1, column 9: a comma is missing before this.'],
    ['a missing comma in a list', '{"a": ["x" "y"]}', 'Not valid JSON at line 1, column 12: a comma is missing before this.'],
    ['a missing colon', '{"a" 1}', 'Not valid JSON at line 1, column 6: a colon (:) is missing between the field name and its value.'],
    ['a missing colon after a later key', '{"a": 1, "b" "x"}', 'Not valid JSON at line 1, column 14: a colon (:) is missing between the field name and its value.'],
    ['the place on a later line', '{\n  "a": 1,\n}', 'Not valid JSON at line 3, column 1: remove the comma before }.'],
    ['an unclosed list', '{"a": [1, 2', 'Not valid JSON: it ends too early; a closing }, ] or " is missing.'],
    ['an unclosed string', '{"a": "open', 'Not valid JSON: it ends too early; a closing }, ] or " is missing.'],
    ['a bad escape', '{"a": "x\\q"}', 'Not valid JSON: a string holds a line break or a backslash escape JSON does not allow (write \\n, \\t, \\", \\\\ or \\uXXXX).'],
    ['a raw line break in a string', '{"a": "line\nbreak"}', 'Not valid JSON: a string holds a line break or a backslash escape JSON does not allow (write \\n, \\t, \\", \\\\ or \\uXXXX).'],
    ['a stray character', '{"a": 1}}', 'Not valid JSON at line 1, column 9: unexpected "}".'],
  ])('%s', (_, text, expected) => {
    expect(explainJsonSyntax(text)).toBe(expected);
  });
});

describe('readPayloadFilter', () => {
  it.each<[string, string, ReturnType<typeof readPayloadFilter>]>([
    ['blank text: no filter', '', { ok: true, filter: null }],
    ['only spaces: no filter', ' \n ', { ok: true, filter: null }],
    ['null: no filter', 'null', { ok: true, filter: null }],
    ['a filter', '{"action": ["opened"]}', { ok: true, filter: { action: ['opened'] } }],
    ['an operator', '{"draft": {"exists": false}}', { ok: true, filter: { draft: { exists: false } } }],
    ['a syntax error, explained', '{"a": 1,}', { ok: false, messages: ['Not valid JSON at line 1, column 9: remove the comma before }.'] }],
    ['a list instead of an object', '[1]', { ok: false, messages: ['The filter must be a JSON object, not an array.'] }],
    ['an operator without its list', '{"a": {"in": 3}}', { ok: false, messages: ['At "a.in": "in" needs a list of values.'] }],
  ])('%s', (_, text, expected) => {
    expect(readPayloadFilter(text)).toEqual(expected);
  });
});

describe('formatFilter', () => {
  it.each<[string, PayloadFilter, string]>([
    ['a value', { action: 'opened' }, '{\n  "action": "opened"\n}'],
    ['a list on one line', { action: ['opened', 'reopened'] }, '{\n  "action": ["opened", "reopened"]\n}'],
    ['a nested object', { pull_request: { draft: false } }, '{\n  "pull_request": {\n    "draft": false\n  }\n}'],
    ['an operator list on one line', { labels: { in: ['bug', 'ui'] } }, '{\n  "labels": {\n    "in": ["bug", "ui"]\n  }\n}'],
    ['commas inside values stay', { title: ['a, b', 'c'] }, '{\n  "title": ["a, b", "c"]\n}'],
    ['an escaped line break stays in its string', { body: ['one\ntwo'] }, '{\n  "body": ["one\\ntwo"]\n}'],
    ['numbers, booleans and null', { n: [1, 2.5, -3], b: [true, null] }, '{\n  "n": [1, 2.5, -3],\n  "b": [true, null]\n}'],
  ])('%s', (_, filter, expected) => {
    expect(formatFilter(filter)).toBe(expected);
  });

  it('reads back as the same filter', () => {
    const filter: PayloadFilter = { action: ['opened', 'reopened'], issue: { labels: { not_in: ['wontfix'] }, locked: { exists: false } } };
    expect(readPayloadFilter(formatFilter(filter))).toEqual({ ok: true, filter });
  });
});

describe('formField', () => {
  it.each<[string, string]>([
    ['name', 'name'],
    ['prompt', 'prompt'],
    ['triggers.0.filter.payload', 'triggers.0.payload'],
    ['triggers.2.filter.webhook_ids', 'triggers.2.webhookUid'],
    ['triggers.1.filter.webhook_ids.0', 'triggers.1.webhookUid'],
    ['triggers.1.filter.payload.action', 'triggers.1.filter.payload.action'],
    ['triggers.2.filter.events', 'triggers.2.events'],
    ['triggers.0.filter.headers', 'triggers.0.headers'],
  ])('%s -> %s', (serverKey, field) => {
    expect(formField(serverKey)).toBe(field);
  });
});

describe('triggers between the editor and the service', () => {
  const none = { events: '', headers: '' };
  it.each<[string, TriggerFormValues]>([
    ['without a filter', { webhookUid: 'wh_1', ...none, payload: '' }],
    ['with a filter', { webhookUid: 'wh_1', ...none, payload: '{\n  "action": ["opened", "reopened"]\n}' }],
    ['with event types and a header filter', { webhookUid: 'wh_1', events: 'pull_request.opened, push', headers: '{\n  "x-tenant": ["acme", "beta"]\n}', payload: '' }],
  ])('a trigger %s reads back as the editor wrote it', (_, values) => {
    const parsed = triggerFormSchema.parse(values);
    expect(triggerFormValues(parsed)).toEqual(values);
  });

  it('reads event types separated by commas or lines, and header names in lower case', () => {
    expect(triggerFormSchema.parse({ webhookUid: 'wh_1', events: 'push,\n pull_request.*\n\n', headers: '{"X-Tenant": "acme"}', payload: '' }).filter).toEqual({
      webhook_ids: ['wh_1'],
      events: ['push', 'pull_request.*'],
      headers: { 'x-tenant': 'acme' },
    });
  });

  it('toTrigger names the webhook and leaves out absent parts', () => {
    expect(toTrigger('wh_1', {})).toEqual({ provider: 'webhook', event: 'received', filter: { webhook_ids: ['wh_1'] } });
    expect(toTrigger('wh_1', { payload: { a: 1 }, events: null })).toEqual({ provider: 'webhook', event: 'received', filter: { webhook_ids: ['wh_1'], payload: { a: 1 } } });
    expect(toTrigger('wh_1', { events: ['push'] }).filter).toEqual({ webhook_ids: ['wh_1'], events: ['push'] });
  });

  it.each<[string, TriggerFormValues, string, string]>([
    ['no webhook', { webhookUid: '', ...none, payload: '' }, 'webhookUid', 'Pick the webhook whose deliveries start this automation'],
    ['a broken filter', { webhookUid: 'wh_1', ...none, payload: '{"a": 01}' }, 'payload', 'Not valid JSON at line 1, column 8: a number cannot start with 0 (write 1, not 01).'],
    ['a partial wildcard', { webhookUid: 'wh_1', ...none, events: 'pull*', payload: '' }, 'events', expect.stringContaining('"*" stands for a whole segment') as unknown as string],
    ['a credential header', { webhookUid: 'wh_1', ...none, headers: '{"Authorization": "x"}', payload: '' }, 'headers', expect.stringContaining('"authorization" cannot be filtered on') as unknown as string],
  ])('%s is reported on its field', (_, values, field, message) => {
    const result = triggerFormSchema.safeParse(values);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toContainEqual([field, message]);
  });
});

describe('Filter on this parameters', () => {
  const trigger = (parts: Partial<TriggerFormValues>): TriggerFormValues => ({ webhookUid: 'wh_1', events: '', headers: '', payload: '', ...parts });

  it('reads a payload condition and merges it into the payload filter text', () => {
    const condition = readConditionParam(JSON.stringify({ path: ['pull_request', 'draft'], value: false }));
    expect(condition).toEqual({ on: 'payload', keys: ['pull_request', 'draft'], value: false });
    expect(triggerWithCondition(trigger({}), condition!)).toEqual({ field: 'payload', text: '{\n  "pull_request": {\n    "draft": false\n  }\n}' });
    expect(JSON.parse(triggerWithCondition(trigger({ payload: '{"action": "opened"}' }), condition!).text)).toEqual({ action: 'opened', pull_request: { draft: false } });
    // A filter being fixed is not rewritten.
    expect(triggerWithCondition(trigger({ payload: '{"action": ' }), condition!).text).toBe('{"action": ');
  });

  it('adds a picked event type to the list once, and a picked header to the header filter in lower case', () => {
    const opened = readConditionParam(JSON.stringify({ on: 'events', value: 'pull_request.opened' }));
    expect(opened).toEqual({ on: 'events', value: 'pull_request.opened' });
    expect(triggerWithCondition(trigger({}), opened!)).toEqual({ field: 'events', text: 'pull_request.opened' });
    expect(triggerWithCondition(trigger({ events: 'push,\n issues.*' }), opened!).text).toBe('push, issues.*, pull_request.opened');
    expect(triggerWithCondition(trigger({ events: 'pull_request.opened' }), opened!).text).toBe('pull_request.opened');

    const tenant = readConditionParam(JSON.stringify({ on: 'headers', path: ['X-Tenant'], value: 'acme' }));
    expect(tenant).toEqual({ on: 'headers', keys: ['x-tenant'], value: 'acme' });
    expect(JSON.parse(triggerWithCondition(trigger({}), tenant!).text)).toEqual({ 'x-tenant': 'acme' });
    // Another value of the same header widens it to a list.
    expect(JSON.parse(triggerWithCondition(trigger({ headers: '{"x-tenant": "globex", "x-env": "prod"}' }), tenant!).text)).toEqual({ 'x-tenant': ['globex', 'acme'], 'x-env': 'prod' });
  });

  it('ignores anything else in the URL', () => {
    for (const raw of [
      undefined,
      '',
      'nope',
      '{"path": [], "value": 1}',
      '{"path": ["a"], "value": {"x": 1}}',
      '{"path": ["a","b","c","d","e","f"], "value": 1}',
      '{"path": ["a"], "value": 1, "x": 2}',
      '{"on": "headers", "path": ["a", "b"], "value": "x"}',
      '{"on": "headers", "path": ["a"], "value": 1}',
      '{"on": "events", "value": ""}',
      '{"on": "events", "path": ["a"], "value": "push"}',
      '{"on": "cookies", "path": ["a"], "value": "x"}',
    ]) {
      expect(readConditionParam(raw)).toBeNull();
    }
  });
});
