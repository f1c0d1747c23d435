import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { evaluateTrigger, type EventTypeCheck, type FilterCheck } from '@/lib/ingress/filters';
import { AppError } from '@/lib/platform/http/errors';
import { listAutomationsForWebhook } from '@/lib/domain/automations/service';
import { QUEUE_FULL_DETAIL_PREFIX } from '@/lib/domain/runs/start';
import { outcomeText, runOutcome, type RunOutcome } from '@/lib/domain/runs/outcome';
import { lookUpOutcomes, type OutcomeRefs } from '@/lib/domain/runs/service';
import type { RunStatus } from '@/lib/domain/run-status/statuses';

// Why not: for one delivery log entry, each automation with a trigger on its
// webhook, and whether the delivery started a run of it or, if not, why.
// Silent non-matches are what users of other products complain about most.
// The filters are today's: when an automation changed after the delivery
// arrived, the answer says so (and Replay can start what now matches).

export type TriggerExplanation = {
  index: number;
  matched: boolean;
  /** The payload filter's checks. */
  checks: FilterCheck[];
  /** The delivery's type against the trigger's `events`; null when it lists none. */
  eventCheck: EventTypeCheck | null;
  headerChecks: FilterCheck[];
  /** Every failed check in one line, event type first. */
  failures: string[];
  /** Which part failed first: what the summary names. */
  failedPart: 'event type' | 'header filter' | 'payload filter' | null;
};

export type AutomationExplanation = {
  automation: { id: string; name: string; enabled: boolean };
  /** outcome: what run control made of the delivery ("started" without it), with what it names. */
  run: { id: string; status: RunStatus; replay: boolean; outcome: RunOutcome; outcomeRefs: OutcomeRefs } | null;
  /** One sentence: started, what run control made of it, or the main reason it did not start. */
  summary: string;
  /** The triggers on this webhook (by index in the automation) and how the delivery fares against them today. */
  triggers: TriggerExplanation[];
};

export type DeliveryExplanation = { note: string | null; automations: AutomationExplanation[] };

export async function explainDelivery(factoryId: string, uid: string, deliveryRowId: string, db: DbOrTx = prisma): Promise<DeliveryExplanation> {
  const delivery = await db.delivery.findFirst({
    where: { id: deliveryRowId, webhook: { uid, factoryId } },
    select: {
      id: true,
      status: true,
      body: true,
      eventType: true,
      headers: true,
      detail: true,
      receivedAt: true,
      runs: {
        select: { id: true, status: true, replay: true, automationId: true, controlKey: true, outcomeRunId: true, outcomeDeliveryId: true, outcomeDetail: true, notBefore: true },
      },
    },
  });
  if (!delivery) throw new AppError('not_found', 'No delivery log entry with this id for this webhook');
  const automations = await listAutomationsForWebhook(factoryId, uid, db);
  const runs = new Map(delivery.runs.map((run) => [run.automationId, run]));
  const outcomes = await lookUpOutcomes(factoryId, delivery.runs, db);
  const accepted = delivery.status === 'accepted' && delivery.body !== null;
  // The accepting statement records a full run queue on the entry (lib/ingress/record.ts).
  const queueFull = accepted && (delivery.detail?.startsWith(QUEUE_FULL_DETAIL_PREFIX) ?? false);
  const payload = accepted ? (JSON.parse(delivery.body!) as unknown) : undefined;

  const explained = automations.map((automation): AutomationExplanation => {
    const run = runs.get(automation.id) ?? null;
    const triggers = automation.triggers
      .filter((t) => t.trigger.filter.webhook_ids[0] === uid)
      .map((t): TriggerExplanation => {
        if (!accepted) return { index: t.index, matched: false, checks: [], eventCheck: null, headerChecks: [], failures: [], failedPart: null };
        const result = evaluateTrigger(t.trigger.filter, { eventType: delivery.eventType, headers: delivery.headers, body: payload });
        const failedPart =
          result.events && !result.events.passed ? 'event type' : result.headers && !result.headers.matched ? 'header filter' : result.payload.matched ? null : 'payload filter';
        return {
          index: t.index,
          matched: result.matched,
          checks: result.payload.checks,
          eventCheck: result.events,
          headerChecks: result.headers?.checks ?? [],
          failures: result.failures,
          failedPart,
        };
      });
    const outcome = run ? runOutcome(run) : null;
    const base = {
      automation: { id: automation.id, name: automation.name, enabled: automation.enabled },
      run: run && outcome ? { id: run.id, status: run.status, replay: run.replay, outcome, outcomeRefs: outcomes.refs(run) } : null,
      triggers,
    };
    if (outcome && outcome.kind !== 'started') return { ...base, summary: `${outcomeText(outcome)}${run!.replay ? ' (when the delivery was replayed)' : ''}` };
    if (run) return { ...base, summary: run.replay ? 'Started a run when the delivery was replayed' : 'Started a run' };
    if (!accepted) return { ...base, summary: 'Did not start: only Accepted deliveries start runs' };
    if (!automation.enabled) return { ...base, summary: 'Did not start: the automation is disabled' };
    if (triggers.some((t) => t.matched) && queueFull) {
      return { ...base, summary: "Did not start: run queue full (the factory had too many queued runs when the delivery arrived). Replay the delivery to start it once runs have finished." };
    }
    if (triggers.some((t) => t.matched)) {
      const when = automation.createdAt > delivery.receivedAt ? 'was created after the delivery arrived' : automation.updatedAt > delivery.receivedAt ? 'changed after the delivery arrived' : 'did not match when the delivery arrived';
      return { ...base, summary: `Did not start, but matches today: the automation ${when}. Replay the delivery to start it.` };
    }
    const first = triggers.find((t) => t.failures.length > 0);
    return { ...base, summary: `Did not start: the ${first?.failedPart ?? 'payload filter'} did not match${first ? ` (${first.failures[0]})` : ''}` };
  });

  const note = accepted
    ? queueFull
      ? `Run queue full: this delivery was accepted but started no runs (${delivery.detail!.slice(QUEUE_FULL_DETAIL_PREFIX.length + 2)}).`
      : null
    : delivery.status === 'duplicate'
      ? 'This entry is a Duplicate: the identity was already accepted, so it started nothing.'
      : 'This request was rejected, so it started nothing.';
  return { note, automations: explained };
}
