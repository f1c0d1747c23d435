import { describe, expect, it } from 'vitest';
import { createAutomationSchema } from '@/lib/domain/automations/schemas';
import { checkEventTypes, matchesEventPattern, matchesEventTypes, MAX_EVENT_PATTERNS, validateEventPatterns } from './events';

const messages = (value: unknown) => {
  const result = validateEventPatterns(value);
  return result.ok ? [] : result.errors.map((e) => e.message);
};

describe('event type patterns', () => {
  it.each<[string, string, boolean]>([
    ['push', 'push', true],
    ['push', 'pushed', false],
    ['push', 'Push', false],
    ['pull_request.opened', 'pull_request.opened', true],
    ['pull_request.opened', 'pull_request.closed', false],
    ['pull_request.*', 'pull_request.opened', true],
    ['pull_request.*', 'pull_request', false],
    ['pull_request.*', 'pull_request_review.submitted', false],
    ['customer.*', 'customer.subscription.created', true],
    ['*.created', 'invoice.created', true],
    ['*.created', 'customer.subscription.created', false],
    ['customer.*.created', 'customer.subscription.created', true],
    ['customer.*.created', 'customer.created', false],
    ['*', 'push', true],
    ['*', 'pull_request.opened', true],
    ['orders/create', 'orders/create', true],
  ])('%s against %s: %s', (pattern, type, expected) => {
    expect(matchesEventPattern(pattern, type)).toBe(expected);
  });

  it('without a list matches every delivery, typed or not; with one, never a delivery without a type', () => {
    expect(matchesEventTypes(null, null)).toBe(true);
    expect(matchesEventTypes(undefined, 'push')).toBe(true);
    expect(matchesEventTypes(['*'], null)).toBe(false);
    expect(matchesEventTypes(['push', 'pull_request.*'], 'pull_request.closed')).toBe(true);
  });

  it('explains the decision with the type and the patterns', () => {
    expect(checkEventTypes(null, 'push')).toBeNull();
    expect(checkEventTypes(['pull_request.*'], 'pull_request_review.submitted')?.reason).toBe('event type "pull_request_review.submitted" is not one of "pull_request.*"');
    expect(checkEventTypes(['push', 'pull_request.*'], 'pull_request.opened')).toMatchObject({ passed: true, reason: 'event type "pull_request.opened" matches "pull_request.*"' });
    expect(checkEventTypes(['push'], null)).toMatchObject({ passed: false, actual: 'none' });
    expect(checkEventTypes(['push'], null)?.reason).toContain('the delivery has no event type');
  });

  it('accepts lists of printable patterns with whole-segment wildcards', () => {
    expect(validateEventPatterns(['pull_request.opened', 'push', '*', 'customer.*', '*.created', 'orders/create'])).toMatchObject({ ok: true });
    expect(validateEventPatterns(Array.from({ length: MAX_EVENT_PATTERNS }, (_, i) => `e${i}`)).ok).toBe(true);
  });

  it.each<[string, unknown, RegExp]>([
    ['a partial wildcard', ['pull*'], /"\*" stands for a whole segment, so "pull\*" cannot hold it/],
    ['a double star', ['**'], /"\*\*" is not a wildcard here/],
    ['a double star segment', ['a.**'], /"\*\*" is not a wildcard here/],
    ['an empty pattern', [''], /cannot be empty/],
    ['an empty segment', ['a..b'], /single dots/],
    ['a leading dot', ['.a'], /single dots/],
    ['a control character', ['a\u0007b'], /printable characters only/],
    ['a line break', ['a\nb'], /printable characters only/],
    ['surrounding spaces', [' push'], /spaces around/],
    ['a long pattern', ['x'.repeat(201)], /at most 200 characters/],
    ['a duplicate', ['push', 'push'], /"push" is listed twice/],
    ['a number', [1], /must be a string/],
    ['too many', Array.from({ length: MAX_EVENT_PATTERNS + 1 }, (_, i) => `e${i}`), /at most 50 event types \(this one has 51\)/],
    ['an empty list', [], /never match/],
    ['not a list', 'push', /as an array of strings/],
  ])('refuses %s with a message that says why', (_what, value, message) => {
    expect(messages(value).join('\n')).toMatch(message);
  });

  it('reports at the trigger field', () => {
    const parsed = createAutomationSchema.safeParse({
      name: 'n',
      prompt: 'p',
      triggers: [{ provider: 'webhook', event: 'received', filter: { webhook_ids: ['wh_a'], events: ['**'] } }],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['triggers.0.filter.events']);
  });
});
