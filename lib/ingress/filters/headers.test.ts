import { describe, expect, it } from 'vitest';
import { createAutomationSchema } from '@/lib/domain/automations/schemas';
import { describeHeaderCheck, evaluateHeaderFilter, matchesHeaderFilter, validateHeaderFilter } from './headers';

const messages = (value: unknown) => {
  const result = validateHeaderFilter(value);
  return result.ok ? [] : result.errors.map((e) => e.message);
};

describe('header filters', () => {
  it('accepts the payload filter operators on string values, names in lower case', () => {
    expect(validateHeaderFilter({ 'X-Tenant': 'acme', 'x-env': ['prod', 'stage'], 'X-Kind': { in: ['a'] }, 'x-skip': { not_in: ['1'] }, 'x-trace': { exists: true } })).toEqual({
      ok: true,
      filter: { 'x-tenant': 'acme', 'x-env': ['prod', 'stage'], 'x-kind': { in: ['a'] }, 'x-skip': { not_in: ['1'] }, 'x-trace': { exists: true } },
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['authorization', { Authorization: 'Bearer x' }, /"authorization" cannot be filtered on: its name suggests a credential/],
    ['a token header', { 'x-gitlab-token': 'x' }, /cannot be filtered on.*stores it redacted/],
    ['a provider signing header', { 'webhook-id': 'x' }, /"webhook-id" cannot be filtered on: Standard Webhooks .*signs deliveries with it/],
    ['a number value', { 'x-count': 5 }, /header values are text, so compare with strings: write "5" instead of 5/],
    ['a number in a list', { 'x-count': { in: ['1', 2] } }, /header values are text/],
    ['nested fields', { 'x-a': { b: 'c' } }, /headers have no nested fields/],
    ['a name that is no header name', { 'x a': '1' }, /is not a header name/],
    ['the same name twice', { 'X-A': '1', 'x-a': '2' }, /listed twice \(header names are case-insensitive: "x-a"\)/],
    ['an empty list', { 'x-a': [] }, /never match/],
    ['an unknown operator', { 'x-a': { $eq: '1' } }, /unknown operator/],
    ['not an object', ['x'], /must be a JSON object/],
  ])('refuses %s with a message that says why', (_what, value, message) => {
    expect(messages(value).join('\n')).toMatch(message);
  });

  it('decides on the stored headers as the payload filter decides on a flat body', () => {
    const headers = { 'x-tenant': 'acme', 'content-type': 'application/json' };
    expect(matchesHeaderFilter({ 'x-tenant': 'acme' }, headers)).toBe(true);
    expect(matchesHeaderFilter({ 'x-tenant': ['beta'] }, headers)).toBe(false);
    expect(matchesHeaderFilter({ 'x-other': { exists: false } }, headers)).toBe(true);
    expect(matchesHeaderFilter({ 'x-other': { not_in: ['a'] } }, headers)).toBe(false);
    expect(matchesHeaderFilter(null, null)).toBe(true);
    expect(matchesHeaderFilter({ 'x-tenant': { exists: true } }, null)).toBe(false);
    const [check] = evaluateHeaderFilter({ 'x-tenant': ['beta'] }, headers).checks;
    expect(describeHeaderCheck(check!)).toBe('header "x-tenant": expected one of ["beta"], got "acme" (not in the list)');
  });

  it('reports at the trigger field and stores names in lower case', () => {
    const trigger = (headers: unknown) => ({ provider: 'webhook', event: 'received', filter: { webhook_ids: ['wh_a'], headers } });
    const refused = createAutomationSchema.safeParse({ name: 'n', prompt: 'p', triggers: [trigger({ Authorization: 'x' })] });
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['triggers.0.filter.headers']);
    const parsed = createAutomationSchema.parse({ name: 'n', prompt: 'p', triggers: [trigger({ 'X-Tenant': 'acme' })] });
    expect(parsed.triggers[0]!.filter.headers).toEqual({ 'x-tenant': 'acme' });
  });
});
