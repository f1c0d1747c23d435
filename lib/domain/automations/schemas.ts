import { z } from 'zod';
import { eventPatternsSchema, headerFilterSchema, payloadFilterSchema, type HeaderFilter, type PayloadFilter } from '@/lib/ingress/filters';
import { MAX_BODY_BYTES } from '@/lib/ingress/limits';
import { runControlSchema } from '@/lib/domain/run-control/config';
import { cursorPageSchema } from '@/lib/platform/paging';

// An automation as the dashboard, the API and (later) definition files write
// it. A trigger is written exactly as docs/automations.md (Triggers) shows it:
//   {"provider": "webhook", "event": "received",
//    "filter": {"webhook_ids": ["<one webhook UID>"], "events": ["push"],
//               "headers": {...}, "payload": {...}}}
// Several webhooks means several triggers, so `webhook_ids` holds exactly one
// UID. Unknown keys are refused at every level: a typo such as "paylod"
// would otherwise silently turn a filter into "match everything".

export const MAX_TRIGGERS = 20;
/**
 * Automations per factory. Every delivery of a webhook is matched against
 * the triggers of the factory's automations on it, so one editor must not be
 * able to make that list unbounded: 100 automations of up to 20 triggers.
 */
export const MAX_AUTOMATIONS_PER_FACTORY = 100;
export const MAX_PROMPT_LENGTH = 20_000;

export const automationNameSchema = z.string().trim().min(1, 'Enter a name').max(100, 'Use at most 100 characters');

export const promptSchema = z
  .string()
  .trim()
  .min(1, 'Write the prompt the run starts with')
  .max(MAX_PROMPT_LENGTH, `Use at most ${MAX_PROMPT_LENGTH.toLocaleString('en-US')} characters`);

/** An object's error: names the first unexpected key (quoted, cut at 40 characters), else says what the object holds. */
const shapeError = (what: string, holds: string) => (issue: { code: string; keys?: string[] }) => {
  if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
    const key = JSON.stringify((issue.keys[0] ?? '').slice(0, 40));
    const more = issue.keys.length > 1 ? ` (and ${issue.keys.length - 1} more)` : '';
    return `${what} has no key ${key}${more}: it holds ${holds}`;
  }
  return `${what} is an object with ${holds}`;
};

const webhookUidSchema = z.string().trim().regex(/^wh_[A-Za-z0-9]{1,64}$/, 'Pick a webhook (a UID such as wh_…)');

export const triggerSchema = z.strictObject(
  {
    provider: z.literal('webhook', { error: 'The provider of a webhook trigger is "webhook"' }),
    event: z.literal('received', { error: 'The event of a webhook trigger is "received"' }),
    filter: z.strictObject(
      {
        webhook_ids: z
          .array(webhookUidSchema, { error: 'List the webhook UID in "webhook_ids"' })
          .length(1, 'A trigger selects exactly one webhook; add another trigger for another webhook'),
        // null, like absence, means "every type", "any headers", "any body".
        events: eventPatternsSchema.nullish(),
        headers: headerFilterSchema.nullish(),
        payload: payloadFilterSchema.nullish(),
      },
      { error: (issue) => (issue.code === 'unrecognized_keys' ? shapeError('A trigger’s filter', 'webhook_ids, events, headers and payload')(issue) : 'A trigger needs a filter with "webhook_ids"') },
    ),
  },
  { error: shapeError('A trigger', 'provider, event and filter') },
);

export type TriggerInput = z.output<typeof triggerSchema>;

export const triggersSchema = z.array(triggerSchema).max(MAX_TRIGGERS, `An automation has at most ${MAX_TRIGGERS} triggers`);

export const createAutomationSchema = z.strictObject({
  name: automationNameSchema,
  prompt: promptSchema,
  enabled: z.boolean().default(true),
  triggers: triggersSchema.default([]),
  // Run control (docs/automations.md, Run control); null or absent: none.
  runControl: runControlSchema.nullish(),
});
export type CreateAutomationInput = z.input<typeof createAutomationSchema>;

export const updateAutomationSchema = z.strictObject({
  name: automationNameSchema.optional(),
  prompt: promptSchema.optional(),
  enabled: z.boolean().optional(),
  triggers: triggersSchema.optional(),
  // null clears run control; absent leaves it as it is.
  runControl: runControlSchema.nullish(),
});
export type UpdateAutomationInput = z.input<typeof updateAutomationSchema>;

/** Automations a list page holds by default; at most 100 (one page at the cap). */
export const AUTOMATIONS_PER_PAGE = 50;

export const listAutomationsSchema = cursorPageSchema(AUTOMATIONS_PER_PAGE);
export type ListAutomationsInput = z.input<typeof listAutomationsSchema>;

export const testFilterSchema = z.strictObject({
  trigger: z.number({ error: 'Give the trigger’s index' }).int().min(0, 'Trigger indexes start at 0'),
  deliveryId: z.string().trim().min(1, 'Give the delivery log entry’s id').max(100),
});

/** A trigger's stored columns (WebhookTrigger). */
export type TriggerColumns = { webhookUid: string; events: unknown; headerFilter: unknown; payloadFilter: unknown };

/** A trigger in the canonical shape, from its stored columns; a part that is not set is left out. */
export function triggerFromColumns(columns: TriggerColumns): TriggerInput {
  const events = (columns.events as string[] | null) ?? null;
  const headers = (columns.headerFilter as HeaderFilter | null) ?? null;
  const payload = (columns.payloadFilter as PayloadFilter | null) ?? null;
  return {
    provider: 'webhook',
    event: 'received',
    filter: { webhook_ids: [columns.webhookUid], ...(events ? { events } : {}), ...(headers ? { headers } : {}), ...(payload ? { payload } : {}) },
  };
}

export const backtestSchema = z.strictObject({
  trigger: triggerSchema,
  // How many of the most recent matches, and of the most recent non-matches, to list (default 25); the counts cover the whole retained log.
  limit: z.number({ error: 'limit must be a number' }).int().min(1, 'limit is at least 1').max(100, 'limit is at most 100').optional(),
});

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** A body pasted into Test filter: what the ingress would accept (JSON, at most 256 KB). */
export const pastedBodySchema = z
  .string({ error: 'Paste a JSON body' })
  .refine((text) => text.trim() !== '', 'Paste a JSON body')
  .refine(
    (text) => new TextEncoder().encode(text).length <= MAX_BODY_BYTES,
    `The body is larger than the ingress accepts: at most ${MAX_BODY_BYTES.toLocaleString('en-US')} bytes (256 KB)`,
  )
  .refine(isJson, 'The body is not valid JSON');
