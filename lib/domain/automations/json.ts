import type { AutomationView } from '@/lib/domain/automations/service';
import type { DeliveryExplanation } from '@/lib/domain/automations/why-not';
import type { RunSummary, RunView } from '@/lib/domain/runs/service';
import { outcomeText, type RunOutcome } from '@/lib/domain/runs/outcome';

// The management API's JSON for automations and runs: fields are chosen, not
// whole rows, and dates are ISO strings.

export function automationJson(automation: AutomationView) {
  return {
    id: automation.id,
    name: automation.name,
    prompt: automation.prompt,
    enabled: automation.enabled,
    triggers: automation.triggers.map((t) => t.trigger),
    // Which webhook each trigger names, by index: a deleted one never fires.
    triggerWebhooks: automation.triggers.map((t) => t.webhook),
    // With its defaults filled in (docs/automations.md, Run control); null: none.
    runControl: automation.runControl,
    runCount: automation.runCount,
    lastRunAt: automation.lastRunAt?.toISOString() ?? null,
    createdAt: automation.createdAt.toISOString(),
    updatedAt: automation.updatedAt.toISOString(),
  };
}

export function runSummaryJson(run: RunSummary) {
  return {
    id: run.id,
    status: run.status,
    automation: run.automation,
    delivery: run.delivery,
    attempts: run.attempts,
    replay: run.replay,
    outcome: outcomeJson(run.outcome),
    controlKey: run.controlKey,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}

export function runJson(run: RunView) {
  return {
    ...runSummaryJson(run),
    prompt: run.prompt,
    envelope: run.envelope,
    attachments: run.attachments.map((a) => ({ name: a.name, contentType: a.contentType, content: a.content })),
    output: run.output,
    error: run.error,
    // Who asked to stop the run (a delivery under cancel-running, or a member), and when.
    cancel: run.cancel ? { requestedAt: run.cancel.requestedAt.toISOString(), delivery: run.cancel.delivery, by: run.cancel.by } : null,
  };
}

/** A run's outcome: its kind, what it names (ids as the API's paths take them) and the sentence the dashboard shows. */
export function outcomeJson(outcome: RunOutcome) {
  return {
    kind: outcome.kind,
    ...(outcome.runId ? { runId: outcome.runId } : {}),
    ...(outcome.deliveryId ? { deliveryId: outcome.deliveryId } : {}),
    ...(outcome.at ? { at: outcome.at.toISOString() } : {}),
    ...(outcome.detail ? { detail: outcome.detail } : {}),
    text: outcomeText(outcome),
  };
}

/** Why not: each automation's run, its outcome as the runs' JSON gives it. */
export function explanationJson(explanation: DeliveryExplanation) {
  return {
    ...explanation,
    automations: explanation.automations.map(({ run, ...automation }) => ({
      ...automation,
      run: run ? { id: run.id, status: run.status, replay: run.replay, outcome: outcomeJson(run.outcome) } : null,
    })),
  };
}
