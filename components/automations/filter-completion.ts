import { isOperatorName } from '@/lib/ingress/filters/types';
import { presenceText, type CatalogueField, type FieldCatalogue } from '@/lib/domain/fields/catalogue';

// What the filter editor offers at the cursor (docs/filters.md, The editor):
// field names of the webhook's catalogue at the cursor's nesting level, and,
// after a field's colon, its frequent values and the operators. The text is
// usually unfinished JSON, so this scans it by hand instead of parsing it.

type Frame = { type: 'object'; key: string | null; state: 'key' | 'colon' | 'value' | 'done' } | { type: 'array'; state: 'value' | 'done' };

export type CursorContext =
  /** Writing a field name: `from` is where the replaced text starts (its opening quote, if any). */
  | { kind: 'key'; path: string[]; from: number; prefix: string }
  /** Writing a value of the field at `path`; `operator` when inside {"in": [...]} and the like. */
  | { kind: 'value'; path: string[]; from: number; prefix: string; operator: 'in' | 'not_in' | 'exists' | null };

function fieldPath(frames: Frame[], includeTop: boolean): { path: string[]; operator: 'in' | 'not_in' | 'exists' | null } {
  const path: string[] = [];
  let operator: 'in' | 'not_in' | 'exists' | null = null;
  frames.forEach((frame, index) => {
    if (frame.type !== 'object' || frame.key === null || (!includeTop && index === frames.length - 1)) return;
    if (isOperatorName(frame.key)) operator = frame.key;
    else path.push(frame.key);
  });
  return { path, operator };
}

function completeValue(frames: Frame[]): void {
  const top = frames.at(-1);
  if (top) top.state = 'done';
}

/** Where the cursor at `pos` stands in the filter text, or null where nothing is offered. */
export function cursorContext(text: string, pos: number): CursorContext | null {
  const frames: Frame[] = [];
  let i = 0;
  while (i < pos) {
    const char = text[i]!;
    const top = frames.at(-1);
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    if (char === '"') {
      const start = i;
      let j = i + 1;
      while (j < pos && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= pos) {
        // The cursor is inside this string.
        const content = text.slice(start + 1, pos);
        if (top?.type === 'object' && top.state === 'key') return { kind: 'key', path: fieldPath(frames, false).path, from: start, prefix: content };
        if (top && top.state === 'value') return { kind: 'value', ...fieldPath(frames, true), from: start, prefix: `"${content}` };
        return null;
      }
      let value: string;
      try {
        value = JSON.parse(text.slice(start, j + 1)) as string;
      } catch {
        value = text.slice(start + 1, j);
      }
      if (top?.type === 'object' && top.state === 'key') {
        top.key = value;
        top.state = 'colon';
      } else completeValue(frames);
      i = j + 1;
      continue;
    }
    if (char === ':') {
      if (top?.type === 'object') top.state = 'value';
    } else if (char === ',') {
      if (top?.type === 'object') {
        top.key = null;
        top.state = 'key';
      } else if (top) top.state = 'value';
    } else if (char === '{') frames.push({ type: 'object', key: null, state: 'key' });
    else if (char === '[') frames.push({ type: 'array', state: 'value' });
    else if (char === '}' || char === ']') {
      frames.pop();
      completeValue(frames);
    } else {
      // A literal or a number (or a stray word).
      const start = i;
      let j = i;
      while (j < text.length && !/[\s,:\]}{["]/.test(text[j]!)) j++;
      if (j >= pos) {
        const prefix = text.slice(start, pos);
        if (top?.type === 'object' && top.state === 'key') return { kind: 'key', path: fieldPath(frames, false).path, from: start, prefix };
        if (top && top.state === 'value') return { kind: 'value', ...fieldPath(frames, true), from: start, prefix };
        return null;
      }
      completeValue(frames);
      i = j;
      continue;
    }
    i++;
  }
  const top = frames.at(-1);
  if (!top) return null;
  if (top.type === 'object' && top.state === 'key') return { kind: 'key', path: fieldPath(frames, false).path, from: pos, prefix: '' };
  if (top.state === 'value') return { kind: 'value', ...fieldPath(frames, true), from: pos, prefix: '' };
  return null;
}

export type FilterCompletion = {
  label: string;
  /** What replaces the typed text. */
  insert: string;
  detail?: string;
  info?: string;
  type: 'property' | 'keyword' | 'constant' | 'text';
  /** Open the list again after inserting (a field name is followed by its values). */
  reopen?: boolean;
  boost?: number;
};

const sameKeys = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((key, i) => key === b[i]);

function valuesText(field: CatalogueField): string | undefined {
  if (!field.values?.length) return undefined;
  return field.values.map((v) => `${JSON.stringify(v.value)} ×${v.count}`).join(', ');
}

/** A field's first values, to read in the list next to its name. */
function topValues(field: CatalogueField): string {
  const values = field.values ?? [];
  const shown = values.slice(0, 3).map((v) => JSON.stringify(v.value)).join(', ');
  return values.length > 3 ? `${shown}…` : shown;
}

/** The fields one level under `path`; a field and its array elements (items, items[]) are one field to a filter. */
function childFields(catalogue: FieldCatalogue, path: readonly string[]): CatalogueField[] {
  const byKey = new Map<string, CatalogueField>();
  for (const field of catalogue.fields) {
    if (field.keys.length !== path.length + 1 || !sameKeys(field.keys.slice(0, -1), path)) continue;
    const key = field.keys.at(-1)!;
    if (isOperatorName(key) || key.startsWith('$')) continue;
    const known = byKey.get(key);
    if (!known) byKey.set(key, field);
    else {
      // Prefer the entry with values (the elements of an array of scalars).
      byKey.set(key, {
        ...known,
        types: [...new Set([...known.types, ...field.types])].sort(),
        values: known.values?.length ? known.values : field.values,
      });
    }
  }
  return [...byKey.values()];
}

function fieldAt(catalogue: FieldCatalogue, path: readonly string[]): CatalogueField | null {
  if (path.length === 0) return null;
  return childFields(catalogue, path.slice(0, -1)).find((field) => field.keys.at(-1) === path.at(-1)) ?? null;
}

const OPERATOR_KEYS: FilterCompletion[] = [
  { label: 'in', insert: '"in": [', detail: 'operator', info: 'The field holds one of these values', type: 'keyword' },
  { label: 'not_in', insert: '"not_in": [', detail: 'operator', info: 'The field is present and holds none of these values', type: 'keyword' },
  { label: 'exists', insert: '"exists": ', detail: 'operator', info: 'The field is present (true) or absent (false)', type: 'keyword', reopen: true },
];

/** The completions offered at a cursor context. */
export function filterCompletions(context: CursorContext, catalogue: FieldCatalogue | null): FilterCompletion[] {
  if (context.kind === 'key') {
    const fields = catalogue ? childFields(catalogue, context.path) : [];
    const options: FilterCompletion[] = fields.map((field) => ({
      label: field.keys.at(-1)!,
      insert: `${JSON.stringify(field.keys.at(-1))}: `,
      detail: [field.types.join(' | '), presenceText(field.present, catalogue!.sampled), ...(field.values?.length ? [topValues(field)] : [])].join(' · '),
      info: valuesText(field),
      type: 'property',
      reopen: true,
      boost: Math.round((field.present / Math.max(catalogue!.sampled, 1)) * 10),
    }));
    return context.path.length > 0 ? [...options, ...OPERATOR_KEYS] : options;
  }
  if (context.operator === 'exists') {
    return ['true', 'false'].map((word) => ({ label: word, insert: word, type: 'constant' }));
  }
  const field = catalogue ? fieldAt(catalogue, context.path) : null;
  const values: FilterCompletion[] = (field?.values ?? []).map((v, index) => ({
    label: JSON.stringify(v.value),
    insert: JSON.stringify(v.value),
    detail: `in ${v.count.toLocaleString('en')} of ${catalogue!.sampled.toLocaleString('en')}`,
    type: 'constant',
    boost: -index,
  }));
  if (context.operator !== null || context.path.length === 0) return values;
  const top = (field?.values ?? []).slice(0, 3).map((v) => JSON.stringify(v.value));
  return [
    ...values,
    { label: '{"in": [...]}', insert: `{"in": [${top.join(', ')}]}`, detail: 'operator', info: 'The field holds one of these values', type: 'keyword', boost: -50 },
    { label: '{"not_in": [...]}', insert: `{"not_in": [${top.slice(0, 1).join(', ')}]}`, detail: 'operator', info: 'The field is present and holds none of these values', type: 'keyword', boost: -51 },
    { label: '{"exists": true}', insert: '{"exists": true}', detail: 'operator', info: 'The field is present, whatever its value', type: 'keyword', boost: -52 },
    { label: '{"exists": false}', insert: '{"exists": false}', detail: 'operator', info: 'The field is absent', type: 'keyword', boost: -53 },
  ];
}
