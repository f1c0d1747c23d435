import { z } from 'zod';
import { parseJsonTree } from '@/components/json-tree';
import { sentence } from '@/components/format';
import { automationNameSchema, MAX_TRIGGERS, promptSchema, type CreateAutomationInput, type TriggerInput } from '@/lib/domain/automations/schemas';
import {
  MAX_EVENT_PATTERN_LENGTH,
  MAX_FILTER_DEPTH,
  MAX_FILTER_STRING_LENGTH,
  validateEventPatterns,
  validateFilter,
  validateHeaderFilter,
  type FilterScalar,
  type HeaderFilter,
  type PayloadFilter,
} from '@/lib/ingress/filters';
import { insertCondition } from '@/lib/ingress/filters/merge';
import { runControlField, runControlFormSchema, type RunControlFormValues } from './run-control-values';

// The automation editor holds a trigger as a webhook UID (picked by name),
// its event types as a list in text (commas or lines), and its header and
// payload filters as JSON text; these turn that into the canonical trigger
// the service takes, with every problem explained in words.

export type TriggerFormValues = { webhookUid: string; events: string; headers: string; payload: string };
export type AutomationFormValues = { name: string; prompt: string; enabled: boolean; triggers: TriggerFormValues[]; runControl: RunControlFormValues };

export const emptyTrigger: TriggerFormValues = { webhookUid: '', events: '', headers: '', payload: '' };

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`;
}

const VALUE_END = /["\d}\]el]/;
const VALUE_START = /["{[\d-]/;

/** Whether `position` follows an object's key (so a colon is due), scanning brackets outside strings. */
function followsKey(text: string, position: number): boolean {
  const stack: string[] = [];
  let lastStringStart = -1;
  for (let i = 0; i < position; i++) {
    const char = text[i]!;
    if (char === '"') {
      lastStringStart = i;
      for (i++; i < position && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '{' || char === '[') stack.push(char);
    else if (char === '}' || char === ']') stack.pop();
  }
  if (stack.at(-1) !== '{' || lastStringStart < 0 || text.slice(0, position).trimEnd().slice(-1) !== '"') return false;
  return /[{,]$/.test(text.slice(0, lastStringStart).trimEnd());
}

/** Why JSON text does not parse, in words with the place; null when it parses. */
export function explainJsonSyntax(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch {
    // explained below
  }
  let position: number | null = null;
  try {
    parseJsonTree(text);
  } catch (error) {
    // Only the scanner's own message carries a position in the whole text.
    const match = /^Unexpected input at position (\d+)$/.exec((error as Error).message);
    if (match) position = Number(match[1]);
  }
  if (position === null) {
    return 'Not valid JSON: a string holds a line break or a backslash escape JSON does not allow (write \\n, \\t, \\", \\\\ or \\uXXXX).';
  }
  if (position >= text.length) return 'Not valid JSON: it ends too early; a closing }, ] or " is missing.';
  const at = `Not valid JSON at ${lineAndColumn(text, position)}`;
  const char = text[position]!;
  const previous = text.slice(0, position).trimEnd().slice(-1);
  const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(position))?.[0];
  if (char === "'") return `${at}: use double quotes (") around text and field names, not single quotes.`;
  if ((char === '}' || char === ']') && previous === ',') return `${at}: remove the comma before ${char}.`;
  if ((char === '}' || char === ',') && previous === ':') return `${at}: a value is missing after the colon.`;
  if (word) return `${at}: put ${word} in double quotes ("${word}"); only true, false and null go without them.`;
  if (/\d/.test(char) && text[position - 1] === '0') return `${at}: a number cannot start with 0 (write 1, not 01).`;
  if (VALUE_START.test(char) && followsKey(text, position)) return `${at}: a colon (:) is missing between the field name and its value.`;
  if (VALUE_START.test(char) && VALUE_END.test(previous)) return `${at}: a comma is missing before this.`;
  return `${at}: unexpected ${JSON.stringify(char)}.`;
}

type Read<T> = { ok: true; filter: T | null } | { ok: false; messages: string[] };
export type PayloadFilterText = Read<PayloadFilter>;

/** JSON text of a filter: blank (or null) means none; otherwise `validate` decides, its messages as sentences. */
function readJsonFilter<T>(text: string, validate: (value: unknown) => { ok: true; filter: T } | { ok: false; errors: { message: string }[] }): Read<T> {
  if (text.trim() === '') return { ok: true, filter: null };
  const syntax = explainJsonSyntax(text);
  if (syntax) return { ok: false, messages: [syntax] };
  const value = JSON.parse(text) as unknown;
  if (value === null) return { ok: true, filter: null };
  const result = validate(value);
  return result.ok ? { ok: true, filter: result.filter } : { ok: false, messages: result.errors.map((error) => sentence(error.message)) };
}

/** The payload filter written in the editor: blank means none (every delivery matches). */
export function readPayloadFilter(text: string): PayloadFilterText {
  return readJsonFilter(text, validateFilter);
}

/** The header filter written in the editor: blank means none; names come back in lower case. */
export function readHeaderFilter(text: string): Read<HeaderFilter> {
  return readJsonFilter(text, validateHeaderFilter);
}

/** The event types as typed: separated by commas or line breaks, blanks ignored. */
export function splitEventTypes(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The event types written in the editor: none listed means every type (and deliveries without one). */
export function readEventTypes(text: string): Read<string[]> {
  const patterns = splitEventTypes(text);
  if (patterns.length === 0) return { ok: true, filter: null };
  const result = validateEventPatterns(patterns);
  return result.ok ? { ok: true, filter: result.patterns } : { ok: false, messages: result.errors.map((error) => sentence(error.message)) };
}

/** The parts of a trigger's filter besides its webhook; a part that is null or absent is left out. */
export type TriggerParts = { events?: string[] | null; headers?: HeaderFilter | null; payload?: PayloadFilter | null };

export function toTrigger(webhookUid: string, parts: TriggerParts): TriggerInput {
  const { events, headers, payload } = parts;
  return {
    provider: 'webhook',
    event: 'received',
    filter: { webhook_ids: [webhookUid], ...(events ? { events } : {}), ...(headers ? { headers } : {}), ...(payload ? { payload } : {}) },
  };
}

export const triggerFormSchema = z
  .object({
    webhookUid: z.string().min(1, 'Pick the webhook whose deliveries start this automation'),
    events: z.string(),
    headers: z.string(),
    payload: z.string(),
  })
  .transform((values, ctx) => {
    const events = readEventTypes(values.events);
    const headers = readHeaderFilter(values.headers);
    const payload = readPayloadFilter(values.payload);
    for (const [path, read] of [['events', events], ['headers', headers], ['payload', payload]] as const) {
      if (!read.ok) ctx.addIssue({ code: 'custom', path: [path], message: read.messages.join(' ') });
    }
    if (!events.ok || !headers.ok || !payload.ok) return z.NEVER;
    return toTrigger(values.webhookUid, { events: events.filter, headers: headers.filter, payload: payload.filter });
  });

export const automationFormSchema = z.object({
  name: automationNameSchema,
  prompt: promptSchema,
  enabled: z.boolean(),
  triggers: z.array(triggerFormSchema).max(MAX_TRIGGERS, `An automation has at most ${MAX_TRIGGERS} triggers`),
  runControl: runControlFormSchema,
}) satisfies z.ZodType<CreateAutomationInput, AutomationFormValues>;

/** The form field a server error belongs to (the service keys them like the API body). */
export function formField(serverKey: string): string {
  const trigger = /^triggers\.(\d+)\.filter\.(webhook_ids|events|headers|payload)(\.\d+)?$/.exec(serverKey);
  if (trigger) return `triggers.${trigger[1]}.${trigger[2] === 'webhook_ids' ? 'webhookUid' : trigger[2]}`;
  if (serverKey === 'runControl' || serverKey.startsWith('runControl.')) return `runControl.${runControlField(serverKey.split('.').slice(1))}`;
  return serverKey;
}

/** A filter as the editor shows it: indented, with each list of values on one line. */
export function formatFilter(filter: PayloadFilter | HeaderFilter): string {
  // JSON.stringify escapes line breaks inside strings, so every newline here is layout.
  return JSON.stringify(filter, null, 2).replace(/\[\n\s+([^[\]{}]*?)\n\s*\]/g, (_, items: string) => `[${items.split(/,\n\s*/).join(', ')}]`);
}

/** The editor's values for a saved trigger. */
export function triggerFormValues(trigger: TriggerInput): TriggerFormValues {
  const { events, headers, payload } = trigger.filter;
  return {
    webhookUid: trigger.filter.webhook_ids[0] ?? '',
    events: events ? events.join(', ') : '',
    headers: headers ? formatFilter(headers) : '',
    payload: payload ? formatFilter(payload) : '',
  };
}

// "Filter on this" opens the editor with ?condition={"on": ..., "path": [...], "value": ...}
// (components/deliveries/filter-on-this.tsx): a field of the payload (the
// default), a request header (`on: "headers"`, the path its one name) or the
// event type (`on: "events"`, no path). The URL is untrusted input like any
// other: anything else in it is ignored.
const conditionParamSchema = z.union([
  z.strictObject({
    on: z.literal('payload').optional(),
    path: z.array(z.string().min(1).max(MAX_FILTER_STRING_LENGTH)).min(1).max(MAX_FILTER_DEPTH),
    value: z.union([z.string().max(MAX_FILTER_STRING_LENGTH), z.number(), z.boolean(), z.null()]),
  }),
  z.strictObject({
    on: z.literal('headers'),
    path: z.tuple([z.string().min(1).max(MAX_FILTER_STRING_LENGTH)]),
    value: z.string().max(MAX_FILTER_STRING_LENGTH),
  }),
  z.strictObject({ on: z.literal('events'), value: z.string().min(1).max(MAX_EVENT_PATTERN_LENGTH) }),
]);

export type PickedCondition =
  | { on: 'payload'; keys: string[]; value: FilterScalar }
  | { on: 'headers'; keys: [string]; value: string }
  | { on: 'events'; value: string };

export function readConditionParam(raw: string | string[] | undefined): PickedCondition | null {
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (!text || text.length > 4 * MAX_FILTER_STRING_LENGTH) return null;
  try {
    const parsed = conditionParamSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return null;
    const condition = parsed.data;
    if (condition.on === 'events') return { on: 'events', value: condition.value };
    if (condition.on === 'headers') return { on: 'headers', keys: [condition.path[0].toLowerCase()], value: condition.value };
    return { on: 'payload', keys: condition.path, value: condition.value };
  } catch {
    return null;
  }
}

/** The filter text with the picked condition merged in; text that is not a valid filter is left as it is. */
export function payloadWithCondition(text: string, condition: { keys: string[]; value: FilterScalar }): string {
  const read = readPayloadFilter(text);
  if (!read.ok) return text;
  return formatFilter(insertCondition(read.filter, condition.keys, condition.value));
}

/** The part of a trigger a picked condition changes, with its new text (a part that does not read as valid is left as it is). */
export function triggerWithCondition(trigger: TriggerFormValues, condition: PickedCondition): { field: 'payload' | 'headers' | 'events'; text: string } {
  switch (condition.on) {
    case 'events': {
      const listed = splitEventTypes(trigger.events);
      return { field: 'events', text: listed.includes(condition.value) ? trigger.events : [...listed, condition.value].join(', ') };
    }
    case 'headers': {
      const read = readHeaderFilter(trigger.headers);
      if (!read.ok) return { field: 'headers', text: trigger.headers };
      return { field: 'headers', text: formatFilter(insertCondition(read.filter as PayloadFilter | null, condition.keys, condition.value)) };
    }
    case 'payload':
      return { field: 'payload', text: payloadWithCondition(trigger.payload, condition) };
  }
}
