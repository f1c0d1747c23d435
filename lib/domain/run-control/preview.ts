import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { runControlSchema } from '@/lib/domain/run-control/config';
import { decide, type ActiveStatus, type GroupRun } from '@/lib/domain/run-control/decide';
import { ACTIVE_RUN_STATUSES } from '@/lib/domain/run-status/statuses';
import { compileKey, groupOf, type KeyFacts } from '@/lib/domain/run-control/key';

// Test filter's word on run control (docs/automations.md, Run control): what
// would become of a delivery matching now, from its group's current state.
// Read-only: the scheduler's own decision (decide.ts) over the group's runs
// with one more pending run, without its lock, so it may differ from what a
// delivery arriving a moment later gets.

export type RunControlPreview = {
  /** The group's key as pages show it. */
  group: string;
  outcome: 'start' | 'wait' | 'debounce' | 'throttle' | 'skip';
  /** One sentence: "would start", "would wait behind run X", "would be debounced until T"… */
  summary: string;
  /** The run it would wait behind. */
  runId?: string;
  /** When a debounced or throttled run would start. */
  until?: Date;
};

const PROBE = '(this delivery)';

/** What the automation's run control would do with a delivery of these facts now; null without run control. */
export async function previewRunControl(automationId: string, facts: KeyFacts, db: DbOrTx = prisma, now = new Date()): Promise<RunControlPreview | null> {
  const automation = await db.automation.findUnique({ where: { id: automationId }, select: { runControl: true } });
  const parsed = runControlSchema.safeParse(automation?.runControl ?? null);
  if (!parsed.success) return null;
  const control = parsed.data;
  const { key, keyText } = groupOf(compileKey(control), facts);
  const [state, rows] = await Promise.all([
    db.runGroup.findUnique({ where: { automationId_key: { automationId, key } } }),
    db.run.findMany({
      where: { automationId, controlKey: key, status: { in: [...ACTIVE_RUN_STATUSES] } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, status: true, deliveryId: true, outcomeRunId: true, notBefore: true, cancelRequestedAt: true },
    }),
  ]);
  const runs: GroupRun[] = rows.map((row) => ({ ...row, status: row.status as ActiveStatus, deliveryRowId: row.deliveryId, deliveryId: row.id }));
  runs.push({ id: PROBE, status: 'pending', deliveryRowId: null, deliveryId: PROBE, outcomeRunId: null, notBefore: null, cancelRequestedAt: null });
  const groupState = {
    burstStartedAt: state?.burstStartedAt ?? null,
    burstDueAt: state?.burstDueAt ?? null,
    windowStartedAt: state?.windowStartedAt ?? null,
    windowRuns: state?.windowRuns ?? 0,
  };
  const change = decide(control, groupState, runs, now).changes.find((candidate) => candidate.id === PROBE);
  const group = keyText;
  switch (change?.status) {
    case 'queued':
      return { group, outcome: 'start', summary: 'would start' };
    case 'waiting':
      return { group, outcome: 'wait', summary: change.outcomeRunId ? `would wait behind run ${change.outcomeRunId}` : 'would wait', ...(change.outcomeRunId && { runId: change.outcomeRunId }) };
    case 'debouncing':
      return { group, outcome: 'debounce', summary: `would be debounced until ${change.notBefore!.toISOString()}`, until: change.notBefore! };
    case 'throttled':
      return { group, outcome: 'throttle', summary: `would be throttled until ${change.notBefore!.toISOString()}`, until: change.notBefore! };
    case 'skipped':
      return { group, outcome: 'skip', summary: `would be skipped: ${change.outcomeDetail}` };
    default:
      // Decided later in the same pass (a debounce due at once): it starts.
      return { group, outcome: 'start', summary: 'would start' };
  }
}
