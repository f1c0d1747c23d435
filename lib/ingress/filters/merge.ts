import { isOperatorName, isPlainObject, type FilterCondition, type FilterScalar, type PayloadFilter } from './types';

// "Filter on this" (docs/filters.md, Filter on this): a condition picked from
// a delivery's JSON, added to a filter at its nested place and merged with
// what is already there. `keys` are the body's field names on the way to the
// value, array positions left out: a filter looks into arrays by itself.

const isNested = (condition: FilterCondition | undefined): condition is PayloadFilter =>
  isPlainObject(condition) && !Object.keys(condition).some(isOperatorName);

const sameScalar = (a: FilterScalar, b: FilterScalar) => a === b;

/** The condition at the leaf, merged: another value of the same field widens it to a list of allowed values. */
function mergeLeaf(existing: FilterCondition | undefined, value: FilterScalar): FilterCondition {
  if (existing === undefined || isNested(existing)) return value;
  if (Array.isArray(existing)) return existing.some((v) => sameScalar(v, value)) ? existing : [...existing, value];
  if (isPlainObject(existing) && 'in' in existing && Array.isArray(existing.in)) {
    return existing.in.some((v) => sameScalar(v, value)) ? existing : { in: [...existing.in, value] };
  }
  if (!isPlainObject(existing) && !Array.isArray(existing)) return sameScalar(existing, value) ? existing : [existing, value];
  // not_in or exists: the picked value says more.
  return value;
}

/** A copy of `filter` (null: none yet) that also requires the field at `keys` to hold `value`. */
export function insertCondition(filter: PayloadFilter | null, keys: readonly string[], value: FilterScalar): PayloadFilter {
  if (keys.length === 0) throw new Error('insertCondition needs at least one key');
  const root: PayloadFilter = { ...(filter ?? {}) };
  let node = root;
  keys.forEach((key, index) => {
    const existing = Object.hasOwn(node, key) ? node[key] : undefined;
    if (index === keys.length - 1) {
      node[key] = mergeLeaf(existing, value);
      return;
    }
    // A nested field replaces a condition on its parent (nested fields already require the parent).
    const next: PayloadFilter = isNested(existing) ? { ...existing } : {};
    node[key] = next;
    node = next;
  });
  return root;
}
