import { z } from 'zod';
import { describeType, formatPath, isOperatorName, isPlainObject, isScalar, type PathSegment, type PayloadFilter } from './types';

// Limits keep every saved filter cheap to evaluate on the ingress path: the
// evaluator only walks the filter's own keys, so bounding the filter bounds
// the work per delivery whatever the payload looks like.
/** Field levels a filter may reach: `{"a":{"b":{"c":{"d":{"e":1}}}}}` is the deepest allowed. */
export const MAX_FILTER_DEPTH = 5;
/** Field names in the whole filter, at every level (operator names are not counted). */
export const MAX_FILTER_KEYS = 50;
/** Values in one list (a bare array, `in` or `not_in`). */
export const MAX_FILTER_LIST_VALUES = 100;
/** Characters in one string value or field name. */
export const MAX_FILTER_STRING_LENGTH = 1_000;
/** Bytes of the filter written as compact JSON (UTF-8). */
export const MAX_FILTER_BYTES = 10 * 1024;

export type FilterError = { path: string; message: string };
export type ValidateFilterResult = { ok: true; filter: PayloadFilter } | { ok: false; errors: FilterError[] };

const OPERATOR_HINT = 'use a value, a list, or {"in"}, {"not_in"}, {"exists"}';
const numberFormat = new Intl.NumberFormat('en-US');

function characterCount(text: string): number {
  // Code points, not UTF-16 units, so an emoji counts as one character.
  if (text.length <= MAX_FILTER_STRING_LENGTH) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const encoder = new TextEncoder();

function shorten(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Checks a payload filter when an automation is saved. Messages are written
 * for the automation editor and name the place in the filter they refer to.
 * A missing filter (null or absent) means "no payload filter" and is the
 * caller's concern: this function only accepts an object.
 */
export function validateFilter(value: unknown): ValidateFilterResult {
  if (!isPlainObject(value)) {
    return { ok: false, errors: [{ path: '', message: `the filter must be a JSON object, not ${describeType(value)}` }] };
  }

  // Size first: it bounds the walk below, and a huge value gets one clear
  // message instead of hundreds of per-key ones.
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    return { ok: false, errors: [{ path: '', message: 'the filter is not plain JSON' }] };
  }
  const bytes = encoder.encode(json).length;
  if (bytes > MAX_FILTER_BYTES) {
    return {
      ok: false,
      errors: [{ path: '', message: `the filter is ${numberFormat.format(bytes)} bytes of JSON; the limit is ${numberFormat.format(MAX_FILTER_BYTES)} bytes (10 KB)` }],
    };
  }

  const errors: FilterError[] = [];
  let keyCount = 0;

  const fail = (path: readonly PathSegment[], text: string) => {
    const where = formatPath(path);
    errors.push({ path: where, message: where === '' ? text : `at "${shorten(where)}": ${text}` });
  };

  const checkString = (path: readonly PathSegment[], text: string) => {
    const count = characterCount(text);
    if (count > MAX_FILTER_STRING_LENGTH) {
      fail(path, `a string is at most ${numberFormat.format(MAX_FILTER_STRING_LENGTH)} characters (this one has ${numberFormat.format(count)})`);
    }
  };

  const checkScalar = (path: readonly PathSegment[], item: unknown): boolean => {
    if (!isScalar(item)) {
      fail(path, `${describeType(item)} is not a JSON value`);
      return false;
    }
    if (typeof item === 'string') checkString(path, item);
    return true;
  };

  const checkList = (path: readonly PathSegment[], list: unknown[], operator: string | null) => {
    if (list.length === 0) {
      fail(
        path,
        operator === 'not_in'
          ? 'an empty "not_in" list excludes nothing; list at least one value (or use {"exists": true} to require the field)'
          : 'an empty list would never match; list at least one value',
      );
      return;
    }
    if (list.length > MAX_FILTER_LIST_VALUES) {
      fail(path, `a list holds at most ${MAX_FILTER_LIST_VALUES} values (this one has ${numberFormat.format(list.length)})`);
      return;
    }
    list.forEach((item, index) => {
      const at = [...path, index];
      if (Array.isArray(item) || isPlainObject(item)) {
        fail(at, `a list can only hold strings, numbers, booleans or null, not ${describeType(item)}`);
      } else {
        checkScalar(at, item);
      }
    });
  };

  const checkOperator = (path: readonly PathSegment[], name: string, argument: unknown) => {
    const at = [...path, name];
    if (name === 'exists') {
      if (typeof argument !== 'boolean') fail(at, `"exists" takes true or false, not ${describeType(argument)}`);
      return;
    }
    if (!Array.isArray(argument)) {
      fail(at, `"${name}" needs a list of values`);
      return;
    }
    checkList(at, argument, name);
  };

  const checkCondition = (path: readonly PathSegment[], condition: unknown, depth: number) => {
    if (Array.isArray(condition)) {
      checkList(path, condition, null);
      return;
    }
    if (!isPlainObject(condition)) {
      checkScalar(path, condition);
      return;
    }
    const keys = Object.keys(condition);
    if (keys.length === 0) {
      fail(path, 'an empty object tests nothing; use {"exists": true} to require the field');
      return;
    }
    const dollarKeys = keys.filter((key) => key.startsWith('$'));
    for (const key of dollarKeys) fail(path, `unknown operator ${JSON.stringify(shorten(key, 40))} (${OPERATOR_HINT})`);
    const operators = keys.filter(isOperatorName);
    const fields = keys.filter((key) => !key.startsWith('$') && !isOperatorName(key));
    if (operators.length > 0 && fields.length > 0) {
      fail(
        path,
        `mixes the operator "${operators[0]}" with the field ${JSON.stringify(shorten(fields[0] ?? '', 40))}; an object holds either one operator or field names, not both`,
      );
      return;
    }
    if (operators.length > 1) {
      fail(path, `use one operator per field (found ${operators.map((name) => `"${name}"`).join(' and ')})`);
      return;
    }
    const [operator] = operators;
    if (operator !== undefined) {
      checkOperator(path, operator, condition[operator]);
      return;
    }
    checkFields(path, condition, fields, depth + 1);
  };

  const checkFields = (path: readonly PathSegment[], object: Record<string, unknown>, fields: string[], depth: number) => {
    if (depth > MAX_FILTER_DEPTH) {
      fail(path, `nested too deeply; a filter reaches at most ${MAX_FILTER_DEPTH} levels into the payload`);
      return;
    }
    for (const field of fields) {
      const at = [...path, field];
      if (path.length === 0 && field.startsWith('$')) {
        fail(path, `unknown operator ${JSON.stringify(shorten(field, 40))} (${OPERATOR_HINT})`);
        continue;
      }
      // The top level always names fields: the body itself cannot be given
      // an operator, so `in`/`not_in`/`exists` here are surely misplaced.
      if (path.length === 0 && isOperatorName(field)) {
        fail(path, `"${field}" is an operator and must sit under a field name, e.g. {"status": {"${field}": ${field === 'exists' ? 'true' : '["a", "b"]'}}}`);
        continue;
      }
      keyCount++;
      if (characterCount(field) > MAX_FILTER_STRING_LENGTH) {
        fail(at, `a field name is at most ${numberFormat.format(MAX_FILTER_STRING_LENGTH)} characters`);
        continue;
      }
      checkCondition(at, object[field], depth);
    }
  };

  checkFields([], value, Object.keys(value), 1);

  if (keyCount > MAX_FILTER_KEYS) {
    errors.unshift({ path: '', message: `the filter has ${keyCount} field names; the limit is ${MAX_FILTER_KEYS}` });
  }

  return errors.length === 0 ? { ok: true, filter: value as PayloadFilter } : { ok: false, errors };
}

// Issues carry an empty path on purpose: a filter is edited as one JSON text
// field, so every message belongs next to that editor (each message already
// names its place in the filter). Per-key zod paths would point form
// libraries at inputs that do not exist.
export const payloadFilterSchema = z.custom<PayloadFilter>().superRefine((value, ctx) => {
  const result = validateFilter(value);
  if (result.ok) return;
  for (const error of result.errors) ctx.addIssue({ code: 'custom', message: error.message, input: value });
});
