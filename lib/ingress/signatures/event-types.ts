// Where a delivery names its kind of event, declared per scheme in the
// registry (and per webhook by its Event type setting), and the pure
// extractor that reads it. The ingress calls it with the body it has
// already parsed: no second parse, no allocation beyond the label.

/** One piece of the label: a request header, or a path into the parsed JSON body. */
export type EventTypePart =
  | { header: string }
  /** Dot-separated keys; a segment of digits indexes an array (`events.0.action`). `names` maps a value to its label (Discord's integer types). */
  | { body: string; names?: Readonly<Record<string, string>> }
  /** The first of these top-level keys the body has, by its name (X names its event by the key that holds it: `tweet_create_events`). */
  | { bodyKey: readonly string[] };

/** The label is the first part, with each later part that is present appended after a dot. */
export type EventTypeRule = {
  /** The rule applies only when this part has this value (Slack's `event_callback`). */
  when?: { part: EventTypePart; equals: string };
  parts: readonly [EventTypePart, ...EventTypePart[]];
};

export type EventTypeSource =
  /** The first rule that applies and whose first part is present gives the label. */
  | { kind: 'rules'; rules: readonly EventTypeRule[]; source: string }
  /** The provider's deliveries name no kind of event; `reason` says why, `source` is the provider's page. */
  | { kind: 'none'; reason: string; source: string };

/** The longest stored type; a longer one is not a type but noise, stored as null. */
export const MAX_EVENT_TYPE_LENGTH = 200;

export type EventTypeInput = {
  /** A request header by name (case-insensitive), or null. */
  header: (name: string) => string | null;
  /** The body as the ingress parsed it. */
  body: unknown;
};

/**
 * What a type (or the setting that reads it) may not hold: control characters
 * (C0, DEL, C1), the line and paragraph separators, unpaired surrogates, and
 * format characters (Unicode's Cf). Format characters are invisible and change
 * how the text around them shows: the bidirectional embeddings, overrides and
 * isolates (U+202A-202E, U+2066-2069) can make the dashboard show
 * `push.merged` for a type that reads otherwise, and the zero-width characters
 * (U+200B-200F, U+2060, U+FEFF) and tag characters (U+E0000-E007F) make two
 * types that look the same differ, or carry text nobody sees into a run's
 * RUN_EVENT_TYPE. No provider's type holds one; a type that does is stored
 * as none, like one with a control character, rather than edited into a type
 * the sender did not send.
 */
export const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;

/** A type as stored: at most 200 printable characters, trimmed; anything else is null (never a rejection). */
export function boundEventType(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (value.length > MAX_EVENT_TYPE_LENGTH * 4) return null;
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > MAX_EVENT_TYPE_LENGTH || UNPRINTABLE.test(trimmed)) return null;
  return trimmed;
}

function atPath(body: unknown, path: string): unknown {
  let node = body;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    if (Array.isArray(node)) {
      if (!/^\d{1,6}$/.test(key)) return undefined;
      node = node[Number(key)];
    } else {
      if (!Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
  }
  return node;
}

function valueOf(part: EventTypePart, input: EventTypeInput): string | null {
  if ('header' in part) {
    const value = input.header(part.header);
    return value === null || value === '' ? null : value;
  }
  if ('bodyKey' in part) {
    const body = input.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
    return part.bodyKey.find((key) => Object.hasOwn(body, key)) ?? null;
  }
  const value = atPath(input.body, part.body);
  const text = typeof value === 'string' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : null;
  if (text === null || text === '') return null;
  return (part.names && Object.hasOwn(part.names, text) ? part.names[text] : undefined) ?? text;
}

/** The delivery's event type under `source`, bounded; null when it names none or an unreadable one. */
export function extractEventType(source: EventTypeSource | null | undefined, input: EventTypeInput): string | null {
  if (!source || source.kind === 'none') return null;
  for (const rule of source.rules) {
    if (rule.when && valueOf(rule.when.part, input) !== rule.when.equals) continue;
    const [first, ...rest] = rule.parts;
    const head = valueOf(first, input);
    if (head === null) continue;
    let label = head;
    for (const part of rest) {
      const value = valueOf(part, input);
      if (value !== null) label += `.${value}`;
      if (label.length > MAX_EVENT_TYPE_LENGTH) return null;
    }
    return boundEventType(label);
  }
  return null;
}

/** The same extractor over a plain header record (a stored log entry's headers, a test's fixture). */
export function headerLookup(headers: Headers | Readonly<Record<string, string>>): (name: string) => string | null {
  if (headers instanceof Headers) return (name) => headers.get(name);
  const lower = new Map(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  return (name) => lower.get(name.toLowerCase()) ?? null;
}

function describePart(part: EventTypePart): string {
  if ('header' in part) return `header \`${part.header}\``;
  if ('bodyKey' in part) return `the first top-level key present of ${part.bodyKey.map((key) => `\`${key}\``).join(', ')}`;
  return part.names ? `body \`${part.body}\` (by name)` : `body \`${part.body}\``;
}

/** The source in one line of prose for docs/providers.md. */
export function describeEventTypeSource(source: EventTypeSource): string {
  if (source.kind === 'none') return `none: ${source.reason}`;
  const rules = source.rules.map((rule) => {
    const [first, ...rest] = rule.parts;
    const parts = [describePart(first), ...rest.map((part) => `\`.\` ${describePart(part)} when present`)].join(' + ');
    return rule.when ? `when ${describePart(rule.when.part)} is \`${rule.when.equals}\`: ${parts}` : parts;
  });
  return rules.join('; else ');
}
