import { z } from 'zod';
import { DEFAULT_QUEUE, keyParts, runControlSchema, WHEN_FULL, type RunControl, type WhenFull } from '@/lib/domain/run-control/config';
import { PERIOD_UNITS, periodParts, type PeriodUnit } from '@/lib/domain/run-control/describe';
import { parseKeyPart } from '@/lib/domain/run-control/key-syntax';

// The editor's Run control section holds the settings as people type them:
// a switch per stage, numbers as text, periods as an amount and a unit. This
// turns them into the settings the service stores (periods in seconds) and
// runs them through the same schema (lib/domain/run-control/config.ts), so
// each message is the API's, shown next to the field it is about.

export type RunControlFormValues = {
  enabled: boolean;
  /** Key parts separated by commas. */
  key: string;
  concurrency: boolean;
  concurrencyLimit: string;
  whenFull: WhenFull;
  queueLimit: string;
  debounce: boolean;
  debouncePeriod: string;
  debounceUnit: PeriodUnit;
  maxWait: string;
  maxWaitUnit: PeriodUnit;
  pace: boolean;
  paceKind: 'throttle' | 'rateLimit';
  paceLimit: string;
  pacePeriod: string;
  paceUnit: PeriodUnit;
  paceQueueLimit: string;
};

export const emptyRunControl: RunControlFormValues = {
  enabled: false,
  key: '',
  concurrency: true,
  concurrencyLimit: '1',
  whenFull: 'queue-newest',
  queueLimit: '',
  debounce: false,
  debouncePeriod: '60',
  debounceUnit: 'seconds',
  maxWait: '',
  maxWaitUnit: 'minutes',
  pace: false,
  paceKind: 'throttle',
  paceLimit: '10',
  pacePeriod: '1',
  paceUnit: 'minutes',
  paceQueueLimit: '',
};

/**
 * Key parts typed in one line, split at the commas between them: a comma
 * inside a bracketed step (`["x,y"].z`) belongs to its part. The key's only
 * quotes are a bracketed step's double quotes (lib/domain/run-control/key-syntax.ts),
 * so an apostrophe in a plain step (`it's`) is just a character.
 */
export function splitKeyParts(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '\\') {
        // An escape keeps the character after it, a quote included.
        current += char + (text[i + 1] ?? '');
        i += 1;
        continue;
      }
      if (char === '"') quoted = false;
    } else if (char === '"' && depth > 0) quoted = true;
    else if (char === '[') depth++;
    else if (char === ']') depth = Math.max(0, depth - 1);
    else if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/**
 * A saved key part as the one-line field shows it: as saved, unless a plain
 * step holds a comma (`a,b`, set through the API), which the field would split
 * at; that step is shown quoted (`["a,b"]`), which reads the same field.
 */
export function keyPartText(part: string): string {
  if (!part.includes(',') || splitKeyParts(part).length === 1) return part;
  const parsed = parseKeyPart(part);
  if (!parsed.ok || parsed.part.kind !== 'path') return part;
  return parsed.part.path
    .map((step, index) => (typeof step === 'number' ? `[${step}]` : /^[^.[\]"\s,]+$/.test(step) ? `${index === 0 ? '' : '.'}${step}` : `[${JSON.stringify(step)}]`))
    .join('');
}

// A number as typed; blank is "not set", and text that is no number goes to the schema as it is, to be refused there in words.
const number = (text: string): number | string | undefined => (text.trim() === '' ? undefined : /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text.trim());

const seconds = (text: string, unit: PeriodUnit): number | string | undefined => {
  const value = number(text);
  return typeof value === 'number' ? value * PERIOD_UNITS.find((candidate) => candidate.unit === unit)!.seconds : value;
};

/** The settings as the API writes them (not yet validated); null when the section is off. */
export function runControlInput(values: RunControlFormValues): unknown {
  if (!values.enabled) return null;
  const parts = splitKeyParts(values.key);
  const pace = { limit: number(values.paceLimit), periodSeconds: seconds(values.pacePeriod, values.paceUnit) };
  // A JSON round trip leaves out what is not set, as an API body would.
  return JSON.parse(
    JSON.stringify({
      key: parts.length === 0 ? undefined : parts,
      concurrency: values.concurrency
        ? { limit: number(values.concurrencyLimit), whenFull: values.whenFull, queueLimit: values.whenFull === 'queue-all' ? number(values.queueLimit) : undefined }
        : undefined,
      debounce: values.debounce ? { periodSeconds: seconds(values.debouncePeriod, values.debounceUnit), maxWaitSeconds: seconds(values.maxWait, values.maxWaitUnit) } : undefined,
      throttle: values.pace && values.paceKind === 'throttle' ? { ...pace, queueLimit: number(values.paceQueueLimit) } : undefined,
      rateLimit: values.pace && values.paceKind === 'rateLimit' ? pace : undefined,
    }),
  ) as unknown;
}

/** The form field a setting's path names (`concurrency.limit` → `concurrencyLimit`); a message about the whole goes on the switch. */
export function runControlField(path: readonly PropertyKey[]): keyof RunControlFormValues {
  const [stage, setting] = path.map(String);
  switch (stage) {
    case 'key':
      return 'key';
    case 'concurrency':
      return setting === 'whenFull' ? 'whenFull' : setting === 'queueLimit' ? 'queueLimit' : 'concurrencyLimit';
    case 'debounce':
      return setting === 'maxWaitSeconds' ? 'maxWait' : 'debouncePeriod';
    case 'throttle':
    case 'rateLimit':
      return setting === 'queueLimit' ? 'paceQueueLimit' : setting === 'periodSeconds' ? 'pacePeriod' : 'paceLimit';
    default:
      return 'enabled';
  }
}

const unitSchema = z.enum(PERIOD_UNITS.map((unit) => unit.unit) as [PeriodUnit, ...PeriodUnit[]]);

export const runControlFormSchema = z
  .object({
    enabled: z.boolean(),
    key: z.string(),
    concurrency: z.boolean(),
    concurrencyLimit: z.string(),
    whenFull: z.enum(WHEN_FULL),
    queueLimit: z.string(),
    debounce: z.boolean(),
    debouncePeriod: z.string(),
    debounceUnit: unitSchema,
    maxWait: z.string(),
    maxWaitUnit: unitSchema,
    pace: z.boolean(),
    paceKind: z.enum(['throttle', 'rateLimit']),
    paceLimit: z.string(),
    pacePeriod: z.string(),
    paceUnit: unitSchema,
    paceQueueLimit: z.string(),
  })
  .transform((values, ctx): RunControl | null => {
    const input = runControlInput(values);
    if (input === null) return null;
    const parsed = runControlSchema.safeParse(input);
    if (parsed.success) return parsed.data;
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const field = runControlField(issue.path);
      // One message per field: the first is the one to fix first.
      if (seen.has(field)) continue;
      seen.add(field);
      ctx.addIssue({ code: 'custom', path: [field], message: issue.message });
    }
    return z.NEVER;
  });

const keyText = (control: RunControl) => keyParts(control).map(keyPartText).join(', ');

/** The editor's values for saved settings (null: the section starts off, with sensible values ready). */
export function runControlFormValues(control: RunControl | null): RunControlFormValues {
  if (!control) return emptyRunControl;
  const period = (value: number | undefined, unit: PeriodUnit) => {
    if (value === undefined) return { amount: '', unit };
    const parts = periodParts(value);
    return { amount: String(parts.amount), unit: parts.unit };
  };
  const debounce = control.debounce ? period(control.debounce.periodSeconds, 'seconds') : { amount: emptyRunControl.debouncePeriod, unit: emptyRunControl.debounceUnit };
  const maxWait = period(control.debounce?.maxWaitSeconds, emptyRunControl.maxWaitUnit);
  const pace = control.throttle ?? control.rateLimit;
  const pacePeriod = pace ? periodParts(pace.periodSeconds) : null;
  return {
    enabled: true,
    key: keyText(control),
    concurrency: control.concurrency !== undefined,
    concurrencyLimit: String(control.concurrency?.limit ?? emptyRunControl.concurrencyLimit),
    whenFull: control.concurrency?.whenFull ?? emptyRunControl.whenFull,
    queueLimit: control.concurrency?.queueLimit === undefined ? '' : String(control.concurrency.queueLimit),
    debounce: control.debounce !== undefined,
    debouncePeriod: debounce.amount,
    debounceUnit: debounce.unit,
    maxWait: maxWait.amount,
    maxWaitUnit: maxWait.unit,
    pace: pace !== undefined,
    paceKind: control.rateLimit ? 'rateLimit' : 'throttle',
    paceLimit: pace ? String(pace.limit) : emptyRunControl.paceLimit,
    pacePeriod: pacePeriod ? String(pacePeriod.amount) : emptyRunControl.pacePeriod,
    paceUnit: pacePeriod ? pacePeriod.unit : emptyRunControl.paceUnit,
    paceQueueLimit: control.throttle?.queueLimit === undefined ? '' : String(control.throttle.queueLimit),
  };
}

/** Every field a server message can name (runControlField's answers). */
export const RUN_CONTROL_FIELDS = ['enabled', 'key', 'concurrencyLimit', 'whenFull', 'queueLimit', 'debouncePeriod', 'maxWait', 'paceLimit', 'pacePeriod', 'paceQueueLimit'] as const satisfies Name[];

type Name = keyof RunControlFormValues;

/** The queue limit a blank field stands for, shown as the field's placeholder. */
export const DEFAULT_QUEUE_TEXT = String(DEFAULT_QUEUE);
