import { AppError } from '@/lib/platform/http/errors';
import { unsafeText } from '@/lib/platform/http/unsafe-text';

// Values that no field of Tripline can hold as given, refused at the one
// place every request's input passes through (the /api/v1 wrapper and the
// dashboard's action client), before any schema or query sees them:
//   - a NUL character (U+0000): PostgreSQL's text cannot store it (error 22021);
//   - a lone surrogate, half of a UTF-16 pair: it has no UTF-8 form, so the
//     database would store U+FFFD instead of what was sent;
//   - a number past 2^53 or not finite (1e400 reads as Infinity): JavaScript
//     cannot hold it exactly, so it would be stored as another number.
// The answer is a 422 whose fields name the value at fault: the path
// parameter, the query parameter, or the body field as a dotted path
// (selection.from, triggers.0.filter).

export { unsafeText };

function unsafeNumber(value: number): string | null {
  if (!Number.isFinite(value)) return 'is a number too large to hold';
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return 'is a number past 2^53 (9,007,199,254,740,991), which cannot be held exactly';
  return null;
}

export type UnsafeValue = { field: string; problem: string };

/**
 * The first string, object key or number in a parsed JSON value that cannot be
 * held, with its dotted path. Walks with its own stack: a body nested
 * thousands of levels deep does not overflow the call stack.
 */
export function findUnsafeValue(root: unknown, prefix = ''): UnsafeValue | null {
  const stack: Array<[path: string, value: unknown]> = [[prefix, root]];
  const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));
  while (stack.length > 0) {
    const [path, value] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = unsafeText(value);
      if (problem) return { field: path || 'body', problem };
    } else if (typeof value === 'number') {
      const problem = unsafeNumber(value);
      if (problem) return { field: path || 'body', problem };
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) stack.push([join(path, index), value[index]]);
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index]!;
        const keyProblem = unsafeText(key);
        if (keyProblem) return { field: join(path, JSON.stringify(key).slice(1, -1)), problem: `has a key that ${keyProblem}` };
        stack.push([join(path, key), child]);
      }
    }
  }
  return null;
}

const refusal = ({ field, problem }: UnsafeValue) => new AppError('validation_failed', `${field} ${problem}`, { [field]: `${field} ${problem}` });

/** Throws a 422 naming the field when a parsed body holds a value that cannot be held. */
export function refuseUnsafeBody(body: unknown): void {
  const found = findUnsafeValue(body);
  if (found) throw refusal(found);
}

/**
 * Throws a 422 naming the parameter when a route's path parameters or the
 * query string hold text that cannot be held, or a path parameter is empty.
 */
export function refuseUnsafeUrl(params: Record<string, string | string[] | undefined>, url: URL): void {
  for (const [name, raw] of Object.entries(params)) {
    for (const value of Array.isArray(raw) ? raw : [raw ?? '']) {
      if (value.trim() === '') throw refusal({ field: name, problem: 'is empty: the URL needs a value here' });
      const problem = unsafeText(value);
      if (problem) throw refusal({ field: name, problem });
    }
  }
  for (const [name, value] of url.searchParams) {
    const keyProblem = unsafeText(name);
    if (keyProblem) throw refusal({ field: JSON.stringify(name).slice(1, -1), problem: `is a query parameter whose name ${keyProblem}` });
    const problem = unsafeText(value);
    if (problem) throw refusal({ field: name, problem });
  }
}
