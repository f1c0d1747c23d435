import { DEFAULT_QUEUE, MAX_GROUPS_PER_AUTOMATION, MAX_KEY_PARTS } from '@/lib/domain/run-control/config';
import { WHEN_FULL_LABELS } from '@/lib/domain/run-control/describe';
import { RUN_OUTCOME_KINDS } from '@/lib/domain/runs/outcome';

// Run control in the OpenAPI document. The bounds, enums and defaults come
// from the zod schema (lib/domain/run-control/config.ts) the API validates
// with; this adds what each field means, so a client can be written from the
// document alone.

type JsonSchema = { properties?: Record<string, JsonSchema>; description?: string; [key: string]: unknown };

const descriptions: Record<string, string> = {
  '': 'Run control (docs/automations.md, Run control). Stages apply in order: debounce, then throttle or rateLimit, then concurrency, each per key. At least one of them is required; unknown keys are refused.',
  key: `What groups deliveries: a payload path as the payload filter writes it (pull_request.number), "$event" (the event type) or "$header.<name>", or a list of up to ${MAX_KEY_PARTS}. Absent: one group for the automation. A delivery missing a part falls in one group of its own per automation. At most ${MAX_GROUPS_PER_AUTOMATION.toLocaleString('en-US')} groups are kept per automation; past it the longest idle are forgotten`,
  concurrency: 'At most `limit` runs in progress per key',
  'concurrency.limit': 'Runs in progress per key',
  'concurrency.whenFull': Object.entries(WHEN_FULL_LABELS)
    .map(([value, { explanation }]) => `${value}: ${explanation}`)
    .join(' '),
  'concurrency.queueLimit': `queue-all only: deliveries that may wait per key (default ${DEFAULT_QUEUE}); past it a delivery is skipped`,
  debounce: 'After the last matching delivery of a key, wait periodSeconds, then start one run with the latest delivery; the others are debounced into it',
  'debounce.periodSeconds': 'The quiet period, in seconds',
  'debounce.maxWaitSeconds': 'A steady stream still runs: at most this many seconds after the first delivery of a burst; not shorter than periodSeconds',
  throttle: 'At most `limit` runs start per periodSeconds per key; the excess waits its turn (throttled). Not together with rateLimit',
  'throttle.limit': 'Runs per period per key',
  'throttle.periodSeconds': 'The period, in seconds',
  'throttle.queueLimit': `Deliveries throttled per key (default ${DEFAULT_QUEUE}); past it a delivery is skipped`,
  rateLimit: 'At most `limit` runs per periodSeconds per key; the excess is skipped, saying why. Not together with throttle',
  'rateLimit.limit': 'Runs per period per key',
  'rateLimit.periodSeconds': 'The period, in seconds',
};

/** The generated schema with a description on the whole and on every field. */
export function runControlDescriptions(schema: object): JsonSchema {
  const annotate = (node: JsonSchema, path: string): JsonSchema => ({
    ...node,
    ...(descriptions[path] ? { description: descriptions[path] } : {}),
    ...(node.properties
      ? { properties: Object.fromEntries(Object.entries(node.properties).map(([key, child]) => [key, annotate(child, path ? `${path}.${key}` : key)])) }
      : {}),
  });
  const { $schema: _, ...rest } = schema as JsonSchema & { $schema?: string };
  return annotate(rest, '');
}

export const runControlExamples = [
  { key: ['repository.full_name', 'pull_request.number'], concurrency: { limit: 1, whenFull: 'cancel-running' } },
  { key: '$header.x-tenant', debounce: { periodSeconds: 60, maxWaitSeconds: 600 } },
  { key: '$event', throttle: { limit: 10, periodSeconds: 60, queueLimit: 100 }, concurrency: { limit: 2, whenFull: 'queue-all' } },
];

export const runOutcomeSchema = {
  type: 'object',
  required: ['kind', 'text'],
  description: 'What became of the delivery the run stands for (docs/automations.md, Outcomes). Without run control always "started"',
  properties: {
    kind: { type: 'string', enum: [...RUN_OUTCOME_KINDS] },
    runId: { type: 'string', description: 'waiting: the run it waits behind; debounced: the run it was folded into' },
    deliveryId: { type: 'string', description: 'The delivery log entry’s id. superseded: the delivery that took its place; cancelled: the one that cancelled it (absent: an admin did)' },
    at: { type: 'string', format: 'date-time', description: 'debouncing: when the debounce ends; throttled: when it starts' },
    detail: { type: 'string', description: 'skipped: why' },
    text: { type: 'string', description: 'The sentence the dashboard shows, e.g. "Waiting behind run cm…"' },
  },
  examples: [
    { kind: 'started', text: 'Started a run' },
    { kind: 'waiting', runId: 'cmabc123', text: 'Waiting behind run cmabc123' },
    { kind: 'throttled', at: '2026-11-28T12:00:00.000Z', text: 'Throttled: starts at 2026-11-28T12:00:00.000Z' },
  ],
};
