import { HEADER_NAME, redactedHeaderReason } from '@/lib/ingress/filters/headers';

// A run control key part as written (docs/automations.md, Run control):
//   - a payload path in the field catalogue's notation: `pull_request.number`,
//     `["a.b"].c` (a key holding a dot, bracket, quote or space is quoted),
//     `commits[0].id` (an element by position);
//   - `$event`: the delivery's event type;
//   - `$header.<name>`: a request header as the log stores it (lower case).
// Pure code, without the settings' schema, so that config.ts can validate
// with it and key.ts extract with it.

export type KeyPart = { kind: 'event' } | { kind: 'header'; name: string } | { kind: 'path'; path: (string | number)[] };

/** Path steps at most: a filter reaches 5 levels, a key a few more. */
export const MAX_KEY_PATH_DEPTH = 10;

export type ParsedKeyPart = { ok: true; part: KeyPart } | { ok: false; message: string };

const HEADER_PREFIX = '$header.';
// An unquoted step: what formatPath (lib/ingress/filters/types.ts) writes without brackets.
const PLAIN_STEP = /^[^.[\]"\s]+/;

/** Reads one key part; the message says what is wrong and how to write it. */
export function parseKeyPart(text: string): ParsedKeyPart {
  const fail = (message: string): ParsedKeyPart => ({ ok: false, message: `Key part ${JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text)}: ${message}` });
  if (text === '$event') return { ok: true, part: { kind: 'event' } };
  if (text.startsWith(HEADER_PREFIX)) {
    const name = text.slice(HEADER_PREFIX.length);
    if (!HEADER_NAME.test(name)) return fail('is not a header name (letters, digits and !#$%&\'*+-.^_`|~ only), e.g. "$header.x-tenant"');
    const redacted = redactedHeaderReason(name, { as: 'be part of a key', reader: 'the key' });
    if (redacted) return { ok: false, message: redacted };
    return { ok: true, part: { kind: 'header', name: name.toLowerCase() } };
  }
  if (text.startsWith('$')) return fail('use "$event", "$header.<name>" or a payload path such as "pull_request.number" (quote a field that starts with $: ["$field"])');
  const path: (string | number)[] = [];
  let rest = text;
  while (rest !== '') {
    if (path.length > 0 && rest.startsWith('.')) {
      rest = rest.slice(1);
      const plain = PLAIN_STEP.exec(rest);
      if (!plain) return fail('a dot must be followed by a field name');
      path.push(plain[0]);
      rest = rest.slice(plain[0].length);
    } else if (rest.startsWith('[')) {
      const step = bracketStep(rest);
      if (typeof step === 'string') return fail(step);
      path.push(step.value);
      rest = rest.slice(step.length);
    } else if (path.length === 0) {
      const plain = PLAIN_STEP.exec(rest);
      if (!plain) return fail('write a payload path such as "pull_request.number"');
      path.push(plain[0]);
      rest = rest.slice(plain[0].length);
    } else {
      return fail(`unexpected ${JSON.stringify(rest[0])}: steps are joined with dots, and a field with a dot, bracket, quote or space is quoted: ["a.b"]`);
    }
    if (path.length > MAX_KEY_PATH_DEPTH) return fail(`a path has at most ${MAX_KEY_PATH_DEPTH} steps`);
  }
  return { ok: true, part: { kind: 'path', path } };
}

/** A bracketed step at the start of `text`: a quoted field name or an element's position; else why not. */
function bracketStep(text: string): { value: string | number; length: number } | string {
  const index = /^\[(\d{1,6})\]/.exec(text);
  if (index) return { value: Number(index[1]), length: index[0].length };
  if (text.startsWith('[]')) return 'a key takes one value, so "[]" (any element) cannot be part of one: name an element by its position, e.g. items[0].sku';
  const quoted = /^\["(?:[^"\\]|\\.)*"\]/.exec(text);
  if (!quoted) return 'a bracket holds a quoted field name (["a.b"]) or a position ([0])';
  try {
    return { value: JSON.parse(quoted[0].slice(1, -1)) as string, length: quoted[0].length };
  } catch {
    return 'the quoted field name is not a valid JSON string';
  }
}
