import type { ApplyOutcome } from '@/lib/domain/definitions/apply';
import { planDigest, type Plan } from '@/lib/domain/definitions/plan';
import type { RepositoryPreview } from '@/lib/domain/definitions/repository';

/** A plan as the management API returns it: what would change, by webhook name, every problem, and its digest (an apply's `plan`). */
export function planJson(plan: Plan) {
  return {
    valid: plan.problems.length === 0,
    digest: planDigest(plan),
    actions: plan.actions.map((action) => ({
      action: action.action,
      name: action.name,
      file: action.file,
      uid: 'uid' in action ? action.uid : null,
      changes: action.changes,
    })),
    unchanged: plan.unchanged,
    problems: plan.problems,
  };
}

/** A successful apply; a failed one is a 422 carrying the same problems. */
export function appliedJson(outcome: ApplyOutcome & { ok: true }) {
  return { applied: true, changed: outcome.changed, created: outcome.created, connections: outcome.connections, plan: planJson(outcome.plan) };
}

/** A checked repository: its newest commit and what applying it would do. */
export function previewJson(preview: RepositoryPreview) {
  return { commit: preview.commit, url: preview.url, branch: preview.branch, plan: planJson(preview.plan) };
}
