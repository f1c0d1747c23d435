import { z } from 'zod';
import { looksSensitive } from '@/lib/platform/http/sensitive-headers';
import { signingScheme } from '@/lib/ingress/signatures/registry';
import { describeCheck, evaluateFilter, matchesFilter } from './evaluate';
import { validateFilter, type FilterError } from './schema';
import { filterToSql, type SqlParams } from './sql';
import { isOperatorName, isPlainObject, type FilterCheck, type FilterResult, type FilterScalar } from './types';

// A trigger's header filter (docs/filters.md, Header filters): conditions on
// the request headers stored with the delivery, written and decided exactly as
// a payload filter on a flat object whose keys are the header names in lower
// case and whose values are strings. The payload filter's validator, evaluator
// and SQL translation do the work; this file only adds what is particular to
// headers: names are case-insensitive (kept in lower case), values are
// compared as strings, and a header the log stores redacted cannot be tested.

export type HeaderCondition = string | string[] | { in: string[] } | { not_in: string[] } | { exists: boolean };
export type HeaderFilter = { [name: string]: HeaderCondition };

// RFC 9110's token: what a header name may hold.
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Why a header cannot be filtered on (the log stores it redacted), or null.
 * `use` names the other readers of stored headers (a run control key part) in the same sentence.
 */
export function redactedHeaderReason(name: string, use: { as: string; reader: string } = { as: 'be filtered on', reader: 'a filter' }): string | null {
  const lower = name.toLowerCase();
  const end = `so the delivery log stores it redacted and ${use.reader} would only ever see "[redacted]"`;
  if (looksSensitive(lower)) return `"${lower}" cannot ${use.as}: its name suggests a credential (authorization, cookie, token, secret, signature…), ${end}`;
  // A header a provider scheme signs with is stored redacted too (lib/platform/http/sensitive-headers.ts, redactHeaders).
  const scheme = signingScheme(lower);
  if (scheme) return `"${lower}" cannot ${use.as}: ${scheme} signs deliveries with it, ${end}`;
  return null;
}

const shown = (name: string) => (name.length > 40 ? `${name.slice(0, 39)}…` : name);

function stringValues(condition: unknown): FilterScalar[] {
  if (Array.isArray(condition)) return condition as FilterScalar[];
  if (isPlainObject(condition)) {
    const list = condition.in ?? condition.not_in;
    return Array.isArray(list) ? (list as FilterScalar[]) : [];
  }
  return [condition as FilterScalar];
}

export type ValidateHeaderFilterResult = { ok: true; filter: HeaderFilter } | { ok: false; errors: FilterError[] };

/**
 * Checks a header filter; on success returns it with every name in lower case
 * (the order kept). Structure, sizes and operators are the payload filter's
 * rules (validateFilter); then each header must be a plain condition on a
 * string, under a name that can be tested.
 */
export function validateHeaderFilter(value: unknown): ValidateHeaderFilterResult {
  const base = validateFilter(value);
  if (!base.ok) return { ok: false, errors: base.errors.map((error) => ({ ...error, message: error.message.replace(/\bthe filter\b/, 'the header filter') })) };
  const errors: FilterError[] = [];
  const normalised: HeaderFilter = {};
  for (const [name, condition] of Object.entries(base.filter)) {
    const lower = name.toLowerCase();
    const fail = (message: string) => errors.push({ path: lower, message: `header "${shown(name)}": ${message}` });
    if (!HEADER_NAME.test(name)) {
      fail('is not a header name (letters, digits and !#$%&\'*+-.^_`|~ only)');
      continue;
    }
    const redacted = redactedHeaderReason(name);
    if (redacted) {
      errors.push({ path: lower, message: redacted });
      continue;
    }
    if (Object.hasOwn(normalised, lower)) {
      fail(`is listed twice (header names are case-insensitive: "${lower}")`);
      continue;
    }
    if (isPlainObject(condition) && !Object.keys(condition).some(isOperatorName)) {
      fail('headers have no nested fields; use a value, a list, or {"in"}, {"not_in"}, {"exists"}');
      continue;
    }
    const nonString = stringValues(condition).find((item) => typeof item !== 'string');
    if (nonString !== undefined) {
      fail(`header values are text, so compare with strings: write ${JSON.stringify(JSON.stringify(nonString))} instead of ${JSON.stringify(nonString)}`);
      continue;
    }
    normalised[lower] = condition as HeaderCondition;
  }
  return errors.length === 0 ? { ok: true, filter: normalised } : { ok: false, errors };
}

// As with the payload filter, every message belongs to the one editor of the field.
export const headerFilterSchema = z
  .custom<HeaderFilter>()
  .superRefine((value, ctx) => {
    const result = validateHeaderFilter(value);
    if (result.ok) return;
    for (const error of result.errors) ctx.addIssue({ code: 'custom', message: error.message, input: value });
  })
  .transform((value) => {
    const result = validateHeaderFilter(value);
    return result.ok ? result.filter : value;
  })
  .meta({
    type: 'object',
    additionalProperties: {
      anyOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' }, minItems: 1 },
        { type: 'object', properties: { in: { type: 'array', items: { type: 'string' } } }, required: ['in'], additionalProperties: false },
        { type: 'object', properties: { not_in: { type: 'array', items: { type: 'string' } } }, required: ['not_in'], additionalProperties: false },
        { type: 'object', properties: { exists: { type: 'boolean' } }, required: ['exists'], additionalProperties: false },
      ],
    },
    description:
      'Conditions on the request headers, with the payload filter\'s operators: {"x-tenant": "acme"}, {"x-env": ["prod", "stage"]}, {"x-kind": {"not_in": ["test"]}}, {"x-trace": {"exists": true}}. Names are case-insensitive (returned in lower case), values are strings; credential-like headers (authorization, cookies, tokens, secrets, signatures, a provider\'s signing headers) are stored redacted and refused.',
  });

// Stored headers as the filter reads them, exactly as the SQL below does (no
// headers is an empty object). The ingress stores names in lower case, as the
// Fetch API hands them over, so the filter's lower-case names meet them.
const headersOf = (stored: unknown): unknown => stored ?? {};

/** How the delivery's stored headers fare against the header filter; no filter matches every delivery. */
export function evaluateHeaderFilter(filter: HeaderFilter | null | undefined, headers: unknown): FilterResult {
  return evaluateFilter(filter, headersOf(headers));
}

/** The same decision, without explanations (for the ingress). */
export function matchesHeaderFilter(filter: HeaderFilter | null | undefined, headers: unknown): boolean {
  if (filter === null || filter === undefined) return true;
  return matchesFilter(filter, headersOf(headers));
}

/** One line: `header "x-tenant": expected one of ["beta"], got "acme" (not in the list)`. */
export function describeHeaderCheck(check: FilterCheck): string {
  return `header ${describeCheck(check).slice('path '.length)}`;
}

/** The header filter as SQL over the jsonb column of stored headers (SQL NULL taken as no headers). */
export function headerFilterToSql(filter: HeaderFilter | null | undefined, column: string, params: SqlParams): string {
  return filterToSql(filter, `COALESCE(${column}, '{}'::jsonb)`, params);
}
