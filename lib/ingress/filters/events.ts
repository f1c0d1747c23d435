import { z } from 'zod';

// A trigger's `events` (docs/filters.md, Event types): the kinds of event it
// starts on, matched against the type the ingress stored with the delivery
// (`pull_request.opened`, `push`, `charge.succeeded`). Pure code: it runs on
// the ingress hot path, and Backtest runs the same rule as SQL (toSql below).
//
// A pattern is dot-separated segments compared exactly (case-sensitive, as
// providers name their events). `*` stands for a whole segment:
// - in the middle, exactly one segment: `*.created` matches `invoice.created`,
//   not `customer.subscription.created`;
// - at the end, one or more segments: `pull_request.*` matches
//   `pull_request.opened` (and `customer.*` matches
//   `customer.subscription.created`), but neither `pull_request` nor
//   `pull_request_review.submitted`;
// - alone, any type.
// A delivery without a type (null) matches no pattern, `*` included: a trigger
// that lists events starts only on deliveries whose type is known.

export const MAX_EVENT_PATTERNS = 50;
export const MAX_EVENT_PATTERN_LENGTH = 200;

// C0 controls, DEL, C1 controls, and the line and paragraph separators: what a stored type never holds (lib/ingress/signatures/event-types.ts).
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export type EventPatternError = { index: number | null; message: string };

/** Why one pattern cannot be saved, or null. */
export function eventPatternProblem(pattern: string): string | null {
  if (pattern.trim() === '') return 'an event type pattern cannot be empty';
  if (pattern !== pattern.trim()) return 'remove the spaces around the pattern';
  if (pattern.length > MAX_EVENT_PATTERN_LENGTH) return `a pattern is at most ${MAX_EVENT_PATTERN_LENGTH} characters (this one has ${pattern.length})`;
  if (UNPRINTABLE.test(pattern)) return 'a pattern holds printable characters only (no control characters or line breaks)';
  for (const segment of pattern.split('.')) {
    if (segment === '') return 'a pattern is segments separated by single dots; it cannot start or end with a dot or hold ".."';
    if (segment === '**') return '"**" is not a wildcard here: "*" is a whole segment, and a "*" at the end already matches one or more segments (e.g. "pull_request.*")';
    if (segment !== '*' && segment.includes('*')) {
      return `"*" stands for a whole segment, so "${segment.length > 40 ? `${segment.slice(0, 39)}…` : segment}" cannot hold it; write "*" between dots (e.g. "pull_request.*")`;
    }
  }
  return null;
}

/** Checks a trigger's `events` list; the messages name the pattern they refer to. */
export function validateEventPatterns(value: unknown): { ok: true; patterns: string[] } | { ok: false; errors: EventPatternError[] } {
  if (!Array.isArray(value)) return { ok: false, errors: [{ index: null, message: 'list the event types as an array of strings, e.g. ["pull_request.opened", "push"]' }] };
  if (value.length === 0) {
    return { ok: false, errors: [{ index: null, message: 'an empty list would never match; list at least one event type, or leave "events" out to match every type' }] };
  }
  if (value.length > MAX_EVENT_PATTERNS) return { ok: false, errors: [{ index: null, message: `a trigger lists at most ${MAX_EVENT_PATTERNS} event types (this one has ${value.length})` }] };
  const errors: EventPatternError[] = [];
  const seen = new Set<string>();
  value.forEach((pattern: unknown, index) => {
    if (typeof pattern !== 'string') {
      errors.push({ index, message: `event type ${index + 1} must be a string` });
      return;
    }
    const problem = eventPatternProblem(pattern);
    if (problem) errors.push({ index, message: `"${pattern.length > 60 ? `${pattern.slice(0, 59)}…` : pattern}": ${problem}` });
    else if (seen.has(pattern)) errors.push({ index, message: `"${pattern}" is listed twice` });
    seen.add(pattern);
  });
  return errors.length === 0 ? { ok: true, patterns: value as string[] } : { ok: false, errors };
}

// One list editor holds the field, so every message belongs to it (as with the payload filter).
export const eventPatternsSchema = z
  .custom<string[]>()
  .superRefine((value, ctx) => {
    const result = validateEventPatterns(value);
    if (result.ok) return;
    for (const error of result.errors) ctx.addIssue({ code: 'custom', message: error.message, input: value });
  })
  // What the API document shows (the custom check above is not representable in JSON Schema).
  .meta({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: MAX_EVENT_PATTERN_LENGTH },
    minItems: 1,
    maxItems: MAX_EVENT_PATTERNS,
    uniqueItems: true,
    description:
      'Event types the trigger starts on, e.g. ["pull_request.opened", "push"]. Dot-separated segments; "*" is a whole segment: one segment in the middle, one or more at the end ("pull_request.*"), any type alone. Absent or null: every type, and deliveries without one; with a list, a delivery without a type does not match.',
  });

/** Whether the type matches the pattern (rules above). */
export function matchesEventPattern(pattern: string, type: string): boolean {
  const wanted = pattern.split('.');
  const got = type.split('.');
  for (let index = 0; index < wanted.length; index++) {
    const segment = wanted[index]!;
    if (segment === '*' && index === wanted.length - 1) return got.length >= wanted.length;
    if (index >= got.length || (segment !== '*' && segment !== got[index])) return false;
  }
  return got.length === wanted.length;
}

/** No list (null or absent) matches every delivery, typed or not; a list matches a type that one pattern matches. */
export function matchesEventTypes(patterns: readonly string[] | null | undefined, type: string | null): boolean {
  if (patterns === null || patterns === undefined) return true;
  return type !== null && patterns.some((pattern) => matchesEventPattern(pattern, type));
}

export type EventTypeCheck = { passed: boolean; expected: string; actual: string; reason: string };

const listed = (patterns: readonly string[]) => {
  const shown = patterns.slice(0, 10).map((p) => `"${p}"`);
  return patterns.length > 10 ? `${shown.join(', ')} and ${patterns.length - 10} more` : shown.join(', ');
};

/** The event-type part of an explanation; null when the trigger lists no events. */
export function checkEventTypes(patterns: readonly string[] | null | undefined, type: string | null): EventTypeCheck | null {
  if (patterns === null || patterns === undefined) return null;
  const expected = `one of ${listed(patterns)}`;
  if (type === null) {
    return {
      passed: false,
      expected,
      actual: 'none',
      reason: `the delivery has no event type, and a trigger that lists event types (${listed(patterns)}) starts only on deliveries whose type is known`,
    };
  }
  const match = patterns.find((pattern) => matchesEventPattern(pattern, type));
  return match !== undefined
    ? { passed: true, expected, actual: type, reason: `event type "${type}" matches "${match}"` }
    : { passed: false, expected, actual: type, reason: `event type "${type}" is not one of ${listed(patterns)}` };
}

// A pattern as a PostgreSQL regular expression (ARE) that decides as
// matchesEventPattern does. Literal text is escaped character by character:
// every ASCII character but letters, digits and `_` gets a backslash (in an ARE, a
// backslash before a non-alphanumeric character is that character), and no
// other character is special.
function patternRegex(pattern: string): string {
  const segments = pattern.split('.');
  const parts = segments.map((segment, index) => {
    if (segment !== '*') return segment.replace(/[\u0020-\u002f\u003a-\u0040\u005b-\u005e\u0060\u007b-\u007e]/g, '\\$&');
    // The last `*`: one or more segments, that is anything (dots included).
    return index === segments.length - 1 ? '.*' : '[^.]*';
  });
  return `^${parts.join('\\.')}$`;
}

/**
 * The SQL boolean expression that is true when the text column `column` (a
 * delivery's type, NULL when none) matches `patterns`; no list is `true`.
 * The patterns are bound as one parameter (a regular expression), never
 * spliced into the SQL text.
 */
export function eventTypesToSql(patterns: readonly string[] | null | undefined, column: string, params: unknown[]): string {
  if (patterns === null || patterns === undefined) return 'true';
  if (patterns.length === 0) return 'false';
  params.push(`(?:${patterns.map(patternRegex).join('|')})`);
  return `COALESCE(${column} ~ $${params.length}::text, false)`;
}
