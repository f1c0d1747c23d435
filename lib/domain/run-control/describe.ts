import { DEFAULT_QUEUE, keyParts, type RunControl, type WhenFull } from '@/lib/domain/run-control/config';

// Run control in words and periods in units people write, shared by the CLI,
// the dashboard's editor and its lists. The settings themselves are always
// stored in seconds (config.ts); these only read and write them for people.

export const PERIOD_UNITS = [
  { unit: 'hours', short: 'h', seconds: 3600 },
  { unit: 'minutes', short: 'min', seconds: 60 },
  { unit: 'seconds', short: 's', seconds: 1 },
] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number]['unit'];

/** The largest unit that holds the period whole: 120 is 2 minutes, 90 stays 90 seconds. */
export function periodParts(seconds: number): { amount: number; unit: PeriodUnit } {
  const unit = PERIOD_UNITS.find((candidate) => seconds % candidate.seconds === 0 && seconds >= candidate.seconds) ?? PERIOD_UNITS[2];
  return { amount: seconds / unit.seconds, unit: unit.unit };
}

/** "90 s", "2 min", "24 h". */
export function formatPeriod(seconds: number): string {
  const { amount, unit } = periodParts(seconds);
  return `${amount.toLocaleString('en-US')} ${PERIOD_UNITS.find((candidate) => candidate.unit === unit)!.short}`;
}

const SUFFIXES: Record<string, number> = { s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/**
 * A period as typed on the command line: "90", "90s", "5m", "5min", "1h". A
 * text it cannot read comes back as it is, for the schema to refuse with its
 * own message ("The debounce period is a number of seconds").
 */
export function parsePeriod(text: string): number | string {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*$/i.exec(text);
  if (!match) return text;
  return Number(match[1]) * SUFFIXES[(match[2] ?? 's').toLowerCase()]!;
}

export const WHEN_FULL_LABELS: Record<WhenFull, { label: string; explanation: string }> = {
  'queue-newest': {
    label: 'Queue newest',
    explanation: 'The new delivery waits for a free slot; a delivery already waiting is marked Superseded. The latest always runs.',
  },
  'queue-all': { label: 'Queue all', explanation: 'Every delivery waits its turn, in order of arrival, up to the queue limit; past it, one is Skipped.' },
  'cancel-running': { label: 'Cancel running', explanation: 'The run in progress is cancelled and the new delivery starts at once.' },
  skip: { label: 'Skip', explanation: 'The new delivery is recorded as Skipped; runs in progress carry on.' },
};

/** The key as a list, as docs/automations.md writes it: `[repository.full_name, pull_request.number]`; null without one. */
export function describeKey(control: Pick<RunControl, 'key'>): string | null {
  const parts = keyParts(control);
  return parts.length ? `[${parts.join(', ')}]` : null;
}

/** The settings in one line, for lists and the CLI: "key [pull_request.number]; concurrency 1, when full: cancel running; debounce 1 min". */
export function describeRunControl(control: RunControl): string {
  const key = describeKey(control);
  const parts = [key ? `key ${key}` : 'one group (no key)'];
  const { concurrency, debounce, throttle, rateLimit } = control;
  if (debounce) parts.push(`debounce ${formatPeriod(debounce.periodSeconds)}${debounce.maxWaitSeconds ? ` (max wait ${formatPeriod(debounce.maxWaitSeconds)})` : ''}`);
  if (throttle) parts.push(`throttle ${throttle.limit} per ${formatPeriod(throttle.periodSeconds)} (queue ${throttle.queueLimit ?? DEFAULT_QUEUE})`);
  if (rateLimit) parts.push(`rate limit ${rateLimit.limit} per ${formatPeriod(rateLimit.periodSeconds)}`);
  if (concurrency) {
    const queue = concurrency.whenFull === 'queue-all' ? ` (queue ${concurrency.queueLimit ?? DEFAULT_QUEUE})` : '';
    parts.push(`concurrency ${concurrency.limit}, when full: ${WHEN_FULL_LABELS[concurrency.whenFull].label.toLowerCase()}${queue}`);
  }
  return parts.join('; ');
}
