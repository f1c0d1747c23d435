import { z } from 'zod';
import { parseKeyPart } from '@/lib/domain/run-control/key-syntax';

// An automation's run control (docs/automations.md, Run control), as the
// dashboard, the API, the CLI and definition files write it:
//
//   {"key": ["repository.full_name", "pull_request.number"],
//    "concurrency": {"limit": 1, "whenFull": "cancel-running"},
//    "debounce": {"periodSeconds": 60, "maxWaitSeconds": 600},
//    "throttle": {"limit": 10, "periodSeconds": 60}}
//
// Every part is optional; an automation without run control (null) starts a
// run for every matching delivery at once. Stages apply in this order, as
// Inngest's do: debounce collapses a burst into its last delivery, then the
// throttle or rate limit paces runs per key, then concurrency holds at most
// `limit` in progress per key. Unknown keys are refused at every level, so a
// typo cannot silently turn a setting off.

/** A key part: a payload path (`pull_request.number`, `["a.b"].c`), `$event` (the event type) or `$header.<name>`. */
export const MAX_KEY_PARTS = 5;
/** One part's text, and the key's values joined: longer values are cut, then the key is a digest. */
export const MAX_KEY_PART_LENGTH = 200;
/** Groups kept per automation; past it the groups idle longest are forgotten (their throttle history with them). */
export const MAX_GROUPS_PER_AUTOMATION = 10_000;
export const MAX_CONCURRENCY = 100;
/** Deliveries waiting per key under queue-all, and throttled per key. */
export const MAX_QUEUE = 1_000;
export const DEFAULT_QUEUE = 100;
export const MIN_PERIOD_SECONDS = 1;
export const MAX_PERIOD_SECONDS = 24 * 60 * 60;
export const MAX_RUNS_PER_PERIOD = 10_000;
/** Deliveries one debounced run stands for: a burst that reaches it runs at once, as if its maximum wait had passed (the envelope lists them all). */
export const MAX_DEBOUNCED_DELIVERIES = 1_000;

export const WHEN_FULL = ['queue-newest', 'queue-all', 'cancel-running', 'skip'] as const;
export type WhenFull = (typeof WHEN_FULL)[number];

const keyPartSchema = z
  .string({ error: 'A key part is text: a payload path such as "pull_request.number", "$event" or "$header.x-tenant"' })
  .trim()
  .min(1, 'A key part cannot be empty')
  .max(MAX_KEY_PART_LENGTH, `A key part is at most ${MAX_KEY_PART_LENGTH} characters`)
  .superRefine((part, ctx) => {
    const parsed = parseKeyPart(part);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message, input: part });
  });

const periodSchema = (what: string) =>
  z
    .number({ error: `${what} is a number of seconds` })
    .int(`${what} is a whole number of seconds`)
    .min(MIN_PERIOD_SECONDS, `${what} is at least ${MIN_PERIOD_SECONDS} second`)
    .max(MAX_PERIOD_SECONDS, `${what} is at most ${MAX_PERIOD_SECONDS.toLocaleString('en-US')} seconds (24 hours)`);

const countSchema = (what: string, max: number) =>
  z
    .number({ error: `${what} is a number` })
    .int(`${what} is a whole number`)
    .min(1, `${what} is at least 1`)
    .max(max, `${what} is at most ${max.toLocaleString('en-US')}`);

export const concurrencySchema = z.strictObject(
  {
    limit: countSchema('The concurrency limit', MAX_CONCURRENCY).default(1),
    whenFull: z.enum(WHEN_FULL, { error: `When the group is full, choose one of ${WHEN_FULL.join(', ')}` }).default('queue-newest'),
    /** queue-all only: deliveries that may wait per key; past it a delivery is skipped. */
    queueLimit: countSchema('The queue limit', MAX_QUEUE).optional(),
  },
  { error: 'concurrency holds limit, whenFull and queueLimit' },
);

export const debounceSchema = z
  .strictObject(
    {
      periodSeconds: periodSchema('The debounce period'),
      /** A steady stream still runs: at most this long after the first delivery of a burst. */
      maxWaitSeconds: periodSchema('The maximum wait').optional(),
    },
    { error: 'debounce holds periodSeconds and maxWaitSeconds' },
  )
  .refine((value) => value.maxWaitSeconds === undefined || value.maxWaitSeconds >= value.periodSeconds, {
    message: 'The maximum wait cannot be shorter than the debounce period',
    path: ['maxWaitSeconds'],
  });

const paceFields = (what: string) => ({ limit: countSchema(`The ${what} limit`, MAX_RUNS_PER_PERIOD), periodSeconds: periodSchema(`The ${what} period`) });

const throttleSchema = z.strictObject(
  { ...paceFields('throttle'), queueLimit: countSchema('The queue limit', MAX_QUEUE).optional() },
  { error: 'throttle holds limit, periodSeconds and queueLimit' },
);

const rateLimitSchema = z.strictObject(paceFields('rate limit'), { error: 'rate limit holds limit and periodSeconds' });

export const runControlSchema = z
  .strictObject(
    {
      key: z.union([keyPartSchema, z.array(keyPartSchema).min(1, 'List at least one key part').max(MAX_KEY_PARTS, `A key has at most ${MAX_KEY_PARTS} parts`)]).optional(),
      concurrency: concurrencySchema.optional(),
      debounce: debounceSchema.optional(),
      /** Throttle: at most `limit` runs start per period per key; the excess waits its turn (bounded). */
      throttle: throttleSchema.optional(),
      /** Rate limit: at most `limit` runs per period per key; the excess is skipped. */
      rateLimit: rateLimitSchema.optional(),
    },
    { error: 'Run control holds key, concurrency, debounce, throttle and rateLimit' },
  )
  .refine((value) => !(value.throttle && value.rateLimit), {
    message: 'Choose a throttle (the excess waits) or a rate limit (the excess is skipped), not both',
    path: ['rateLimit'],
  })
  .refine((value) => value.concurrency || value.debounce || value.throttle || value.rateLimit, {
    message: 'Run control needs at least one of concurrency, debounce, throttle or rate limit',
  });

export type RunControlInput = z.input<typeof runControlSchema>;
export type RunControl = z.output<typeof runControlSchema>;

/** The key's parts as a list (a single part may be written as a string). Empty: one group per automation. */
export function keyParts(control: Pick<RunControl, 'key'>): string[] {
  const key: unknown = control.key;
  // A saved key that is neither (settings edited in the database by hand) has no parts to show.
  return typeof key === 'string' ? [key] : Array.isArray(key) ? key.filter((part): part is string => typeof part === 'string') : [];
}
