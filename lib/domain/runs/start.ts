import { timeOrderedId } from '@/lib/platform/crypto/random';
import { matchesTrigger, type HeaderFilter, type PayloadFilter } from '@/lib/ingress/filters';
import { composeEnvelope, type RunEnvelope } from '@/lib/domain/runs/envelope';
import type { RunControl } from '@/lib/domain/run-control/config';
import { compileKey, groupOf, type Group } from '@/lib/domain/run-control/key';

// Which runs a delivery starts (docs/automations.md, Matching and the
// transaction): one per enabled automation
// with a trigger on the webhook whose payload filter matches; an automation
// with two matching triggers starts one run. Shared by the ingress (at
// arrival) and replay (against today's automations). Pure code.

/**
 * A trigger of an enabled automation: what matching needs, and no more. The
 * ingress keeps these in its live cache for every delivery, so the prompt
 * (up to 20,000 characters) is not among them: a run takes its automation's
 * prompt in the statement that inserts it.
 */
export type ActiveTrigger = {
  automationId: string;
  automationName: string;
  events: string[] | null;
  headerFilter: HeaderFilter | null;
  payloadFilter: PayloadFilter | null;
  /** The automation's run control as saved (validated), null without: its runs start pending in their group. */
  runControl?: RunControl | null;
};

export const newRunId = () => timeOrderedId('run_', 16);

/**
 * A run to insert; its payload is the delivery's stored body, not a copy, and its prompt is its automation's when inserted.
 * With `group` (its automation has run control) it is inserted pending, for the scheduler to decide (lib/domain/run-control).
 */
export type NewRun = { automationId: string; envelope: RunEnvelope; group?: Group };

export const QUEUE_FULL_DETAIL_PREFIX = 'run queue full';

/**
 * The delivery log entry's detail when the factory's run queue was full
 * (TRIPLINE_RUN_QUEUE_LIMIT): the entry is Accepted, its runs were not started.
 */
export function queueFullDetail(runs: number, limit: number): string {
  return `${QUEUE_FULL_DETAIL_PREFIX}: ${runs === 1 ? '1 run was' : `${runs} runs were`} not started (the factory already had ${limit.toLocaleString('en-US')} queued runs)`;
}

export function runsToStart(
  webhook: { name: string; uid: string },
  triggers: readonly ActiveTrigger[],
  /** The body (as text and parsed), and the type and (redacted) headers the log stores with it: what filters read. */
  delivery: { deliveryId: string; text: string; value: unknown; eventType: string | null; headers: Record<string, string> | null },
): NewRun[] {
  const runs: NewRun[] = [];
  const started = new Set<string>();
  const facts = { eventType: delivery.eventType, headers: delivery.headers, body: delivery.value };
  for (const trigger of triggers) {
    if (started.has(trigger.automationId)) continue;
    if (!matchesTrigger({ events: trigger.events, headers: trigger.headerFilter, payload: trigger.payloadFilter }, facts)) continue;
    started.add(trigger.automationId);
    const envelope = composeEnvelope({ webhookName: webhook.name, webhookUid: webhook.uid, deliveryId: delivery.deliveryId, eventType: delivery.eventType, body: delivery.text });
    // The group is read from what the log stores, like the filters, so Replay groups a delivery as its arrival did.
    const group = trigger.runControl ? groupOf(compileKey(trigger.runControl), facts) : undefined;
    runs.push({ automationId: trigger.automationId, envelope, ...(group && { group }) });
  }
  return runs;
}

/**
 * The triggers of a webhook's enabled automations as one SQL expression (a
 * JSON array or NULL), in automation then trigger order. `uidColumn` names
 * the webhook UID to match and `factoryColumn` its factory.
 */
export function activeTriggersSql(uidColumn: string, factoryColumn: string): string {
  return `(SELECT json_agg(json_build_object('automationId', a."id", 'automationName', a."name", 'events', t."events", 'headerFilter', t."headerFilter",
                                             'payloadFilter', t."payloadFilter", 'runControl', a."runControl")
                          ORDER BY a."createdAt", a."id", t."position")
            FROM "WebhookTrigger" t JOIN "Automation" a ON a."id" = t."automationId"
           WHERE t."webhookUid" = ${uidColumn} AND a."enabled" AND a."factoryId" = ${factoryColumn})`;
}
