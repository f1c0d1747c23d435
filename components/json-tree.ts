// A JSON parser for showing and checking what was sent, used by the delivery
// viewer and the automation form's sample payloads. It keeps what JSON.parse
// loses: keys in their order (JSON.parse moves integer-like keys first),
// repeated keys, and numbers as written (no rounding of 12345678901234567890
// or 1.10).
//
// Depth is bounded: any JSON value up to 256 KiB is a valid delivery,
// including one nested 100,000 levels deep. Below maxDepth levels a subtree
// is kept as its raw text (scanned without recursion), so the parser's stack
// does not grow with the nesting.

/** Levels shown as a tree; deeper subtrees are shown as their raw text. */
export const MAX_DEPTH = 64;

export type JsonNode =
  | { kind: 'object'; entries: Array<[string, JsonNode]> }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; raw: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  /** A subtree below the depth limit, as the exact text it was sent as. */
  | { kind: 'raw'; text: string };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = { true: { kind: 'boolean', value: true }, false: { kind: 'boolean', value: false }, null: { kind: 'null' } } as const;

/**
 * Parses JSON text into a tree that keeps key order, repeated keys and number
 * literals. Throws on invalid text. Objects and arrays deeper than `maxDepth`
 * become raw nodes: their brackets are matched without recursion, the inside
 * is not checked (the ingress checked the whole body before storing it).
 */
export function parseJsonTree(text: string, maxDepth = Number.POSITIVE_INFINITY): JsonNode {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(`Unexpected input at position ${i}`);
  };
  const space = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const string = (): string => {
    const start = i;
    i++; // opening quote
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i++;
        return JSON.parse(text.slice(start, i)) as string;
      }
      i += c === '\\' ? 2 : 1;
    }
    return fail();
  };
  /** The text of the object or array at i, brackets matched iteratively. */
  const raw = (): JsonNode => {
    const start = i;
    let open = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i++;
        while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
        if (i >= text.length) fail();
      } else if (c === '{' || c === '[') open++;
      else if (c === '}' || c === ']') {
        open--;
        if (open === 0) {
          i++;
          return { kind: 'raw', text: text.slice(start, i) };
        }
      }
      i++;
    }
    return fail();
  };
  const value = (depth = 0): JsonNode => {
    space();
    const c = text[i];
    if ((c === '{' || c === '[') && depth >= maxDepth) return raw();
    if (c === '{') {
      i++;
      const entries: Array<[string, JsonNode]> = [];
      space();
      if (text[i] === '}') {
        i++;
        return { kind: 'object', entries };
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail();
        const key = string();
        space();
        if (text[i] !== ':') fail();
        i++;
        entries.push([key, value(depth + 1)]);
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return { kind: 'object', entries };
        } else fail();
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return { kind: 'array', items };
        } else fail();
      }
    }
    if (c === '"') return { kind: 'string', value: string() };
    for (const [word, node] of Object.entries(LITERALS)) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return node;
      }
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (!match) return fail();
    i += match[0].length;
    return { kind: 'number', raw: match[0] };
  };
  const root = value();
  space();
  if (i !== text.length) fail();
  return root;
}
