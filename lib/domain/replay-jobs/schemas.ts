import { z } from 'zod';
import { eventPatternProblem } from '@/lib/ingress/filters/events';
import { ISO_INSTANT_HINT, parseIsoInstant } from '@/lib/platform/instant';

// What a bulk replay selects (docs/replay.md): a webhook's Accepted
// deliveries by the log's own filters (search text, event type, time
// range), or the deliveries one trigger of an automation matches, as
// Backtest counts them. Shared by the API, the dashboard and the CLI.

/** The most deliveries one job replays (a larger selection is refused: narrow it). */
export const REPLAY_JOB_MAX = 5_000;
/** How many of the selection a preview lists. */
export const PREVIEW_ENTRIES = 10;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

const instant = (field: string) =>
  z.preprocess(
    // A Date is a selection parsed once already (a route's body, then the service).
    (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : blank(v)),
    z
      .string()
      .max(40)
      // ISO 8601 only (a time without a zone, what a datetime-local field sends, is UTC, as the dashboard shows times).
      .transform((value, context) => {
        const at = parseIsoInstant(value);
        if (!at) context.addIssue({ code: 'custom', message: `${field} must be ${ISO_INSTANT_HINT}` });
        return at ?? z.NEVER;
      })
      .optional(),
  );

export const replaySelectionSchema = z
  .strictObject({
    /** The webhook whose log is read (its UID); implied by the trigger when `automation` is given. */
    webhook: z.preprocess(blank, z.string().trim().min(1).max(100).optional()),
    /** Only Accepted deliveries keep a payload, so only they can be replayed: `accepted` is the one status allowed (and the default). */
    status: z.preprocess(
      blank,
      z.literal('accepted', { error: 'Only Accepted deliveries can be replayed: status must be accepted (or left out)' }).optional(),
    ),
    q: z.preprocess(blank, z.string().trim().max(200, 'Search for at most 200 characters').optional()),
    event: z.preprocess(
      blank,
      z
        .string()
        .superRefine((value, context) => {
          const problem = eventPatternProblem(value);
          if (problem) context.addIssue({ code: 'custom', message: `The event type filter is not valid: ${problem}` });
        })
        .optional(),
    ),
    from: instant('from'),
    to: instant('to'),
    /** The deliveries this automation's trigger (by index, default 0) matches in Backtest. */
    automation: z.preprocess(blank, z.string().trim().min(1).max(100).optional()),
    trigger: z.preprocess(blank, z.coerce.number().int().min(0, 'trigger is an index from 0').max(99, 'trigger is an index from 0 to 99').optional()),
  })
  .superRefine((value, context) => {
    if (!value.webhook && !value.automation) context.addIssue({ code: 'custom', path: ['webhook'], message: 'Name the webhook whose deliveries to replay (or an automation)' });
    if (value.automation && (value.q || value.event || value.from || value.to)) {
      context.addIssue({ code: 'custom', path: ['automation'], message: 'Select by an automation’s trigger or by the log’s filters, not both' });
    }
    if (value.trigger !== undefined && !value.automation) context.addIssue({ code: 'custom', path: ['trigger'], message: 'trigger needs automation' });
    if (value.from && value.to && value.from >= value.to) context.addIssue({ code: 'custom', path: ['to'], message: 'to must be later than from' });
  });

export type ReplaySelection = z.output<typeof replaySelectionSchema>;
export type ReplaySelectionInput = z.input<typeof replaySelectionSchema>;

export const startReplayJobSchema = z.strictObject({ selection: replaySelectionSchema });
