import { RUN_STATUSES, STARTED_RUN_STATUSES, type RunStatus } from '@/lib/domain/run-status/statuses';

// What became of the matched delivery a run row stands for, under run
// control (docs/automations.md, Run control; prisma/schema.prisma, RunStatus).
// One reading for every place that shows it: the automation's runs list, the
// run page, the delivery page's Why not and the API's run JSON. Pure: the
// pages resolve the referenced run and delivery into links themselves.

type StartedStatus = (typeof STARTED_RUN_STATUSES)[number];
const started: ReadonlySet<RunStatus> = new Set(STARTED_RUN_STATUSES);

/** Started, or the status itself for every other one (pending, waiting, … cancelled). */
export const RUN_OUTCOME_KINDS = ['started', ...RUN_STATUSES.filter((status): status is Exclude<RunStatus, StartedStatus> => !started.has(status))] as const;
export type RunOutcomeKind = (typeof RUN_OUTCOME_KINDS)[number];

export type RunOutcome = {
  kind: RunOutcomeKind;
  /** waiting: the run it waits behind; debounced: the run it was folded into. */
  runId?: string;
  /** superseded: the delivery (log entry id) that took its place; cancelled: the one that cancelled it (absent: an admin did). */
  deliveryId?: string;
  /** debouncing: when the debounce ends; throttled: when it starts. */
  at?: Date;
  /** skipped: why. */
  detail?: string;
};

export type OutcomeRow = {
  status: RunStatus;
  outcomeRunId: string | null;
  outcomeDeliveryId: string | null;
  outcomeDetail: string | null;
  notBefore: Date | null;
};

/** The outcome a run row records; a reference the row lacks is left out. */
export function runOutcome(row: OutcomeRow): RunOutcome {
  if (started.has(row.status)) return { kind: 'started' };
  const kind = row.status as Exclude<RunStatus, StartedStatus>;
  const runId = row.outcomeRunId ?? undefined;
  const deliveryId = row.outcomeDeliveryId ?? undefined;
  const at = row.notBefore ?? undefined;
  switch (kind) {
    case 'pending':
      return { kind };
    case 'waiting':
    case 'debounced':
      return runId ? { kind, runId } : { kind };
    case 'debouncing':
    case 'throttled':
      return at ? { kind, at } : { kind };
    case 'superseded':
    case 'cancelled':
      return deliveryId ? { kind, deliveryId } : { kind };
    case 'skipped':
      return row.outcomeDetail ? { kind, detail: row.outcomeDetail } : { kind };
  }
}

/** A piece of an outcome's sentence: text, or a reference the page may turn into a link. */
export type OutcomeSegment = string | { run: string } | { delivery: string } | { time: Date };

const labels: Record<RunOutcomeKind, string> = {
  started: 'Started',
  pending: 'Pending',
  waiting: 'Waiting',
  debouncing: 'Debouncing',
  throttled: 'Throttled',
  superseded: 'Superseded',
  debounced: 'Debounced',
  skipped: 'Skipped',
  cancelled: 'Cancelled',
};

export const outcomeLabel = (outcome: Pick<RunOutcome, 'kind'>) => labels[outcome.kind];

/**
 * The outcome as a sentence in pieces, e.g. ["Waiting behind run ", {run: "cm…"}].
 * Each place renders the references its own way (a link, an ID, a time in the
 * reader's zone); outcomeText joins them as plain text.
 */
export function outcomeSegments(outcome: RunOutcome): OutcomeSegment[] {
  switch (outcome.kind) {
    case 'started':
      return ['Started a run'];
    case 'pending':
      return ['Pending: run control has not decided yet'];
    case 'waiting':
      return outcome.runId ? ['Waiting behind run ', { run: outcome.runId }] : ['Waiting for a run of its group to finish'];
    case 'debouncing':
      return outcome.at ? ['Debouncing until ', { time: outcome.at }] : ['Debouncing until its group is quiet'];
    case 'throttled':
      return outcome.at ? ['Throttled: starts at ', { time: outcome.at }] : ['Throttled: starts when its group’s limit allows'];
    case 'superseded':
      return outcome.deliveryId ? ['Superseded by delivery ', { delivery: outcome.deliveryId }] : ['Superseded by a newer delivery of its group'];
    case 'debounced':
      return outcome.runId ? ['Debounced into run ', { run: outcome.runId }] : ['Debounced into a later run of its group'];
    case 'skipped':
      return [outcome.detail ? `Skipped: ${outcome.detail}` : 'Skipped'];
    case 'cancelled':
      return outcome.deliveryId ? ['Cancelled by delivery ', { delivery: outcome.deliveryId }] : ['Cancelled by an admin'];
  }
}

/** The outcome's sentence as plain text: references as IDs, times as ISO 8601 (UTC). */
export function outcomeText(outcome: RunOutcome): string {
  return outcomeSegments(outcome)
    .map((segment) => (typeof segment === 'string' ? segment : 'run' in segment ? segment.run : 'delivery' in segment ? segment.delivery : segment.time.toISOString()))
    .join('');
}

/** What the outcome means for the delivery, in a sentence or two (the run page's Outcome). Nothing for a started run: its status says it. */
export function outcomeExplanation(outcome: RunOutcome): string | null {
  switch (outcome.kind) {
    case 'started':
      return null;
    case 'pending':
      return 'The delivery matched; run control decides in a moment whether it starts, waits or is folded into another run.';
    case 'waiting':
      return 'Its group already has as many runs in progress as the automation’s concurrency allows. It starts when one ends, unless a newer delivery of the group takes its place.';
    case 'debouncing':
      return 'Run control waits for the group to be quiet. If another delivery of the group arrives first, that one takes its place, and this one is Debounced into its run.';
    case 'throttled':
      return 'Its group has started as many runs as the throttle allows in this period. It starts when the period allows, in order of arrival.';
    case 'superseded':
      return 'A newer delivery of the same group arrived while this one waited. When the group is full, only the newest delivery waits (Queue newest), so this one starts no run.';
    case 'debounced':
      return 'A later delivery of the group arrived within the debounce period. One run started with the group’s latest delivery; its envelope lists this delivery’s ID among those it stands for.';
    case 'skipped':
      return 'This delivery starts no run. Replay it to try again once the group has room.';
    case 'cancelled':
      return outcome.deliveryId
        ? 'A newer delivery of the same group arrived, and the automation cancels the run in progress when the group is full (Cancel running). The run was stopped.'
        : 'An admin cancelled the run. It was stopped before it finished.';
  }
}
