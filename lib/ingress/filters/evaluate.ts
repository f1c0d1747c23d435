import {
  describeType,
  formatPath,
  isOperatorName,
  isPlainObject,
  isScalar,
  renderJson,
  type FilterCheck,
  type FilterResult,
  type FilterScalar,
  type PathSegment,
  type PayloadFilter,
} from './types';

// Where the walk stands in the payload. `missing` remembers the first absent
// field so the explanation can say "pull_request is missing" rather than
// blaming the leaf; `blocked` is a place no field can exist (the parent is a
// scalar, or an empty array), which fails every condition, `exists: false`
// included, because a filter that expects nested fields there is mistaken
// about the payload's shape and must not pass by accident.
type Slot =
  | { kind: 'present'; value: unknown }
  | { kind: 'missing'; at: readonly PathSegment[] }
  | { kind: 'blocked'; why: string };

/** Checks are collected only when someone will read them. */
type Out = FilterCheck[] | null;

type Outcome = { passed: boolean; reason: string };

const present = (value: unknown): Slot => ({ kind: 'present', value });

function label(path: readonly PathSegment[]): string {
  return path.length === 0 ? 'the body' : `"${formatPath(path)}"`;
}

function absentWhy(slot: Exclude<Slot, { kind: 'present' }>, path: readonly PathSegment[]): string {
  if (slot.kind === 'blocked') return slot.why;
  return slot.at.length === path.length ? 'the field is missing' : `${label(slot.at)} is missing`;
}

function record(out: Out, path: readonly PathSegment[], slot: Slot, expected: () => string, outcome: Outcome): number {
  if (out) {
    out.push({
      path: formatPath(path),
      passed: outcome.passed,
      expected: expected(),
      actual: slot.kind === 'present' ? renderJson(slot.value) : 'missing',
      reason: outcome.reason,
    });
  }
  return outcome.passed ? 0 : 1;
}

function typeMismatch(value: unknown, wanted: FilterScalar): string | null {
  const got = describeType(value);
  const has = describeType(wanted);
  return got === has ? null : `got ${got}, the filter has ${has}`;
}

function equalsOutcome(wanted: FilterScalar, slot: Slot, path: readonly PathSegment[]): Outcome {
  if (slot.kind !== 'present') return { passed: false, reason: absentWhy(slot, path) };
  const value = slot.value;
  if (Array.isArray(value)) {
    if (value.length === 0) return { passed: false, reason: 'the array is empty' };
    const index = value.indexOf(wanted);
    return index >= 0 ? { passed: true, reason: `element ${index} is equal` } : { passed: false, reason: 'no element is equal' };
  }
  // `===` on parsed JSON is exactly the type-strict rule: 1 and 1.0 are the
  // same number, 1 and "1" or true and "true" are different types.
  if (value === wanted) return { passed: true, reason: 'equal' };
  return { passed: false, reason: typeMismatch(value, wanted) ?? 'different value' };
}

function inOutcome(list: readonly FilterScalar[], slot: Slot, path: readonly PathSegment[]): Outcome {
  if (slot.kind !== 'present') return { passed: false, reason: absentWhy(slot, path) };
  const value = slot.value;
  if (Array.isArray(value)) {
    if (value.length === 0) return { passed: false, reason: 'the array is empty' };
    const index = value.findIndex((item) => list.includes(item as FilterScalar));
    return index >= 0 ? { passed: true, reason: `element ${index} is in the list` } : { passed: false, reason: 'no element is in the list' };
  }
  if (list.includes(value as FilterScalar)) return { passed: true, reason: 'in the list' };
  const type = describeType(value);
  const sameType = list.some((item) => describeType(item) === type);
  return { passed: false, reason: sameType ? 'not in the list' : `not in the list; no value in the list is ${type}` };
}

function notInOutcome(list: readonly FilterScalar[], slot: Slot, path: readonly PathSegment[]): Outcome {
  // Fails closed on a missing field: a filter naming a field that never
  // arrives (a typo, a renamed field) must not quietly match every delivery.
  if (slot.kind === 'missing') return { passed: false, reason: `${absentWhy(slot, path)}; "not_in" needs the field to be present` };
  if (slot.kind !== 'present') return { passed: false, reason: absentWhy(slot, path) };
  const value = slot.value;
  if (Array.isArray(value)) {
    if (value.length === 0) return { passed: true, reason: 'the array is empty' };
    const index = value.findIndex((item) => list.includes(item as FilterScalar));
    return index >= 0
      ? { passed: false, reason: `element ${index} is in the excluded list` }
      : { passed: true, reason: 'no element is in the excluded list' };
  }
  return list.includes(value as FilterScalar) ? { passed: false, reason: 'in the excluded list' } : { passed: true, reason: 'not in the excluded list' };
}

function existsOutcome(wanted: boolean, slot: Slot, path: readonly PathSegment[]): Outcome {
  if (slot.kind === 'present') return wanted ? { passed: true, reason: 'present' } : { passed: false, reason: 'the field is present' };
  if (slot.kind === 'blocked') return { passed: false, reason: slot.why };
  return { passed: !wanted, reason: absentWhy(slot, path) };
}

const isScalarList = (value: unknown): value is FilterScalar[] => Array.isArray(value) && value.every(isScalar);

// Stored filters are validated when the automation is saved. If one is not
// (edited in the database, an older format), the condition fails closed with
// a plain reason instead of throwing on the ingress path.
function invalid(out: Out, path: readonly PathSegment[], slot: Slot): number {
  return record(out, path, slot, () => 'a valid condition', { passed: false, reason: 'this condition is not valid; save the filter again to see what to fix' });
}

function evalCondition(condition: unknown, slot: Slot, path: readonly PathSegment[], out: Out): number {
  if (isScalar(condition)) return record(out, path, slot, () => renderJson(condition), equalsOutcome(condition, slot, path));
  if (Array.isArray(condition)) {
    if (!isScalarList(condition) || condition.length === 0) return invalid(out, path, slot);
    return record(out, path, slot, () => `one of ${renderJson(condition)}`, inOutcome(condition, slot, path));
  }
  if (!isPlainObject(condition)) return invalid(out, path, slot);
  const keys = Object.keys(condition);
  const [first] = keys;
  if (first === undefined) return invalid(out, path, slot);
  if (!keys.some(isOperatorName)) return evalFields(condition, slot, path, out);
  if (keys.length !== 1) return invalid(out, path, slot);
  const argument = condition[first];
  if (first === 'exists') {
    if (typeof argument !== 'boolean') return invalid(out, path, slot);
    return record(out, path, slot, () => (argument ? 'present' : 'missing'), existsOutcome(argument, slot, path));
  }
  if (!isScalarList(argument) || argument.length === 0) return invalid(out, path, slot);
  if (first === 'in') return record(out, path, slot, () => `one of ${renderJson(argument)}`, inOutcome(argument, slot, path));
  return record(out, path, slot, () => `none of ${renderJson(argument)}`, notInOutcome(argument, slot, path));
}

/** Returns the number of failed leaf conditions; 0 means the fields match. */
function evalFields(filter: Record<string, unknown>, slot: Slot, path: readonly PathSegment[], out: Out): number {
  let at = slot;
  if (at.kind === 'present') {
    if (Array.isArray(at.value)) return evalAnyElement(filter, at.value, path, out);
    if (!isPlainObject(at.value)) at = { kind: 'blocked', why: `${label(path)} is ${describeType(at.value)}, not an object` };
  }
  let failures = 0;
  for (const key of Object.keys(filter)) {
    const childPath = [...path, key];
    let child: Slot = at;
    if (at.kind === 'present') {
      const object = at.value as Record<string, unknown>;
      child = Object.hasOwn(object, key) ? present(object[key]) : { kind: 'missing', at: childPath };
    }
    failures += evalCondition(filter[key], child, childPath, out);
  }
  return failures;
}

// An array of objects matches nested fields when one element matches all of
// them. The explanation shows the matching element, or else the one closest
// to matching, so the editor sees real values instead of "no element matched".
function evalAnyElement(filter: Record<string, unknown>, list: readonly unknown[], path: readonly PathSegment[], out: Out): number {
  if (list.length === 0) return evalFields(filter, { kind: 'blocked', why: `${label(path)} is an empty array` }, path, out);
  const elementSlot = (index: number): Slot =>
    Array.isArray(list[index]) ? { kind: 'blocked', why: `${label([...path, index])} is an array, not an object` } : present(list[index]);
  let best = 0;
  let bestFailures = Number.POSITIVE_INFINITY;
  for (let index = 0; index < list.length; index++) {
    const failures = evalFields(filter, elementSlot(index), [...path, index], null);
    if (failures < bestFailures) {
      best = index;
      bestFailures = failures;
      if (failures === 0) break;
    }
  }
  if (out) {
    const start = out.length;
    evalFields(filter, elementSlot(best), [...path, best], out);
    if (bestFailures > 0 && list.length > 1) {
      for (let index = start; index < out.length; index++) {
        const check = out[index];
        if (check && !check.passed) out[index] = { ...check, reason: `${check.reason}; no element of ${label(path)} matches every condition, this one comes closest` };
      }
    }
  }
  return bestFailures;
}

/**
 * Explains how a delivery's JSON body fares against a payload filter: one
 * check per leaf condition, in filter order, every condition evaluated. No
 * filter, or `{}`, matches every body.
 */
export function evaluateFilter(filter: PayloadFilter | null | undefined, payload: unknown): FilterResult {
  if (filter === null || filter === undefined) return { matched: true, checks: [] };
  if (!isPlainObject(filter)) {
    const checks: FilterCheck[] = [];
    invalid(checks, [], present(payload));
    return { matched: false, checks };
  }
  if (Object.keys(filter).length === 0) return { matched: true, checks: [] };
  const checks: FilterCheck[] = [];
  const failures = evalFields(filter, present(payload), [], checks);
  return { matched: failures === 0, checks };
}

/** The same decision as `evaluateFilter(...).matched`, without building explanations (for the ingress). */
export function matchesFilter(filter: PayloadFilter | null | undefined, payload: unknown): boolean {
  if (filter === null || filter === undefined) return true;
  if (!isPlainObject(filter)) return false;
  if (Object.keys(filter).length === 0) return true;
  return evalFields(filter, present(payload), [], null) === 0;
}

/** One line for the Test filter panel or the CLI: `path "action": expected one of [...], got "closed" (not in the list)`. */
export function describeCheck(check: FilterCheck): string {
  return `path "${check.path}": expected ${check.expected}, got ${check.actual} (${check.reason})`;
}
