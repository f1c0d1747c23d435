import { createHash } from 'node:crypto';
import { isPlainObject } from '@/lib/ingress/filters/types';
import { MAX_KEY_PART_LENGTH, type RunControl } from '@/lib/domain/run-control/config';
import { parseKeyPart, type KeyPart } from '@/lib/domain/run-control/key-syntax';

// The group a delivery falls in for an automation's run control
// (docs/automations.md, Run control, The key): the values of the key's
// parts, read from what the delivery log stores (the parsed body, the event
// type, the redacted headers), so the ingress, Replay and Test filter group
// alike. Pure code, on the ingress's path: a few property reads per run.
//
//   - No key: one group for the whole automation.
//   - A delivery that lacks a part (a path that is absent, no event type, no
//     such header) falls in one group of its own per automation: such
//     deliveries are controlled together rather than each alone, which would
//     let a malformed burst bypass every limit.
//   - The key stored is the values as canonical JSON (object keys sorted, so
//     equal values are one group whatever their order). Past
//     MAX_KEY_PART_LENGTH characters it is a SHA-256 digest of that text, and
//     keyText, what pages show, is the text cut to that length.

export type Group = { key: string; keyText: string };

/** The group of deliveries without a key configured. */
export const WHOLE_AUTOMATION: Group = { key: '$all', keyText: '(every delivery)' };
/** The group of deliveries that lack a part of the key. */
export const MISSING_PART: Group = { key: '$missing', keyText: '(a key part is missing)' };

/** What a key reads from a delivery: as the log stores it. */
export type KeyFacts = { body: unknown; eventType: string | null; headers: unknown };

// A part that reads nothing: every delivery lacks it.
const UNREADABLE: KeyPart = { kind: 'header', name: '' };

/**
 * The parts of a saved key. runControlSchema has checked each when it was
 * saved; one that no longer reads (settings edited in the database by hand)
 * puts every delivery in the missing part's group rather than fail the
 * ingress, which calls this for every delivery.
 */
export function compileKey(control: Pick<RunControl, 'key'>): KeyPart[] {
  const key: unknown = control.key;
  // Not a list: one part (a text, or whatever a hand edit left there, which reads nothing).
  const texts: unknown[] = Array.isArray(key) ? key : key === undefined ? [] : [key];
  return texts.map((text) => {
    const parsed = typeof text === 'string' ? parseKeyPart(text) : null;
    return parsed?.ok ? parsed.part : UNREADABLE;
  });
}

function valueAt(part: KeyPart, facts: KeyFacts): unknown {
  if (part.kind === 'event') return facts.eventType ?? undefined;
  if (part.kind === 'header') return isPlainObject(facts.headers) && Object.hasOwn(facts.headers, part.name) ? facts.headers[part.name] : undefined;
  let node = facts.body;
  for (const step of part.path) {
    if (typeof step === 'number') {
      if (!Array.isArray(node) || step >= node.length) return undefined;
      node = node[step] as unknown;
    } else {
      if (!isPlainObject(node) || !Object.hasOwn(node, step)) return undefined;
      node = node[step];
    }
  }
  return node;
}

/** How deep a key part's value may nest: deeper, the part counts as missing (a body nested thousands deep overflowed the stack: a 500 on every retry). */
export const MAX_KEY_VALUE_DEPTH = 64;

class TooDeep extends Error {}

/** JSON with every object's keys sorted: one text per value. Throws TooDeep past MAX_KEY_VALUE_DEPTH. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_KEY_VALUE_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key], depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The delivery's group under `parts` (compileKey). */
export function groupOf(parts: readonly KeyPart[], facts: KeyFacts): Group {
  if (parts.length === 0) return WHOLE_AUTOMATION;
  const values: string[] = [];
  for (const part of parts) {
    const value = valueAt(part, facts);
    if (value === undefined) return MISSING_PART;
    try {
      values.push(canonicalJson(value));
    } catch (error) {
      if (error instanceof TooDeep) return MISSING_PART;
      throw error;
    }
  }
  const key = `[${values.join(',')}]`;
  const text = values.join(', ');
  if (key.length <= MAX_KEY_PART_LENGTH) return { key, keyText: text };
  return { key: `sha256:${createHash('sha256').update(key).digest('hex')}`, keyText: `${text.slice(0, MAX_KEY_PART_LENGTH - 1)}…` };
}
