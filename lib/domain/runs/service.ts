import 'server-only';
import { decodeTimeCursor, keysetPage, type TimeCursor } from '@/lib/platform/time-cursor';
import { RUNS_PER_API_PAGE_MAX } from '@/lib/domain/runs/schemas';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { notFound } from '@/lib/platform/http/errors';
import { payloadAttachments, type RunAttachment, type RunEnvelope } from '@/lib/domain/runs/envelope';
import { runOutcome, type OutcomeRow, type RunOutcome } from '@/lib/domain/runs/outcome';
import type { RunStatus } from '@/lib/domain/run-status/statuses';

// Reading runs: the Runs views (per automation, per delivery) and the run
// page. Runs are created by the ingress (lib/ingress/record.ts) and moved
// through their lifecycle by the workers (lib/domain/runs/worker.ts).


/** A delivery log entry a run names. webhookDeleted: the delivery log of a deleted webhook cannot be browsed, so the dashboard shows the ID without a link. */
export type RunDelivery = { id: string; deliveryId: string; webhookUid: string; webhookName: string; webhookDeleted: boolean };

/** The run and the delivery an outcome names, as far as they are still stored (null otherwise). */
export type OutcomeRefs = { run: { id: string; automationId: string } | null; delivery: RunDelivery | null };

export type RunSummary = {
  id: string;
  status: RunStatus;
  automation: { id: string; name: string };
  delivery: RunDelivery | null;
  attempts: number;
  /** Started by an admin's replay of the delivery. */
  replay: boolean;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** What became of the delivery under run control (lib/domain/runs/outcome.ts); kind "started" otherwise. */
  outcome: RunOutcome;
  outcomeRefs: OutcomeRefs;
  /** The run control group's key as the pages show it (RunGroup.keyText); null when the run has none. */
  controlKey: string | null;
};

export type RunView = RunSummary & {
  prompt: string;
  envelope: RunEnvelope;
  attachments: RunAttachment[];
  output: string | null;
  error: string | null;
  /**
   * Set once the run's cancel was requested (lib/domain/runs/cancel.ts): by a
   * newer delivery under run control's cancel-running, or by a member (`by`,
   * their email). A running run with one is being stopped.
   */
  cancel: { requestedAt: Date; delivery: RunSummary['delivery']; by: string | null } | null;
};

const deliverySelect = { id: true, deliveryId: true, webhook: { select: { uid: true, name: true, deletedAt: true } } } as const;

const summarySelect = {
  id: true,
  status: true,
  attempts: true,
  replay: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  controlKey: true,
  controlKeyText: true,
  outcomeRunId: true,
  outcomeDeliveryId: true,
  outcomeDetail: true,
  notBefore: true,
  automation: { select: { id: true, name: true } },
  delivery: { select: deliverySelect },
} as const;

type SummaryRow = OutcomeRow & {
  id: string;
  controlKey: string | null;
  controlKeyText: string | null;
  attempts: number;
  replay: boolean;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  automation: { id: string; name: string };
  delivery: { id: string; deliveryId: string; webhook: { uid: string; name: string; deletedAt: Date | null } } | null;
};

function toDelivery(row: { id: string; deliveryId: string; webhook: { uid: string; name: string; deletedAt: Date | null } }): RunDelivery {
  return { id: row.id, deliveryId: row.deliveryId, webhookUid: row.webhook.uid, webhookName: row.webhook.name, webhookDeleted: row.webhook.deletedAt !== null };
}

/** What the outcomes of these runs name, looked up in three queries however many runs there are. */
export type OutcomeLookup = {
  refs: (row: Pick<OutcomeRow, 'outcomeRunId' | 'outcomeDeliveryId'>) => OutcomeRefs;
  keyText: (automationId: string, controlKey: string | null, controlKeyText?: string | null) => string | null;
};

/**
 * Resolves the runs and deliveries outcomes name, and the groups' keys as
 * written for people, within the factory: a run's own key text, or for a run
 * recorded before runs carried it, its group's. A group forgotten past the
 * bound (MAX_GROUPS_PER_AUTOMATION) shows its stored key instead.
 */
export async function lookUpOutcomes(
  factoryId: string,
  rows: (Pick<OutcomeRow, 'outcomeRunId' | 'outcomeDeliveryId'> & { automationId: string; controlKey: string | null; controlKeyText?: string | null })[],
  db: DbOrTx = prisma,
): Promise<OutcomeLookup> {
  const ids = (values: (string | null)[]) => [...new Set(values.filter((value): value is string => value !== null))];
  const runIds = ids(rows.map((row) => row.outcomeRunId));
  const deliveryIds = ids(rows.map((row) => row.outcomeDeliveryId));
  const keys = ids(rows.map((row) => (row.controlKeyText ? null : row.controlKey)));
  const [runs, deliveries, groups] = await Promise.all([
    runIds.length ? db.run.findMany({ where: { factoryId, id: { in: runIds } }, select: { id: true, automationId: true } }) : [],
    deliveryIds.length ? db.delivery.findMany({ where: { id: { in: deliveryIds }, webhook: { factoryId } }, select: deliverySelect }) : [],
    keys.length
      ? db.runGroup.findMany({
          where: { automationId: { in: ids(rows.map((row) => row.automationId)) }, key: { in: keys } },
          select: { automationId: true, key: true, keyText: true },
        })
      : [],
  ]);
  const runById = new Map(runs.map((run) => [run.id, run]));
  const deliveryById = new Map(deliveries.map((delivery) => [delivery.id, toDelivery(delivery)]));
  const keyTexts = new Map(groups.map((group) => [`${group.automationId}\u0000${group.key}`, group.keyText]));
  return {
    refs: (row) => ({
      run: (row.outcomeRunId && runById.get(row.outcomeRunId)) || null,
      delivery: (row.outcomeDeliveryId && deliveryById.get(row.outcomeDeliveryId)) || null,
    }),
    keyText: (automationId, controlKey, controlKeyText) =>
      controlKey === null ? null : controlKeyText || (keyTexts.get(`${automationId}\u0000${controlKey}`) ?? controlKey),
  };
}

function toSummary(row: SummaryRow, lookup: OutcomeLookup): RunSummary {
  return {
    id: row.id,
    status: row.status,
    automation: row.automation,
    delivery: row.delivery ? toDelivery(row.delivery) : null,
    attempts: row.attempts,
    replay: row.replay,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    outcome: runOutcome(row),
    outcomeRefs: lookup.refs(row),
    controlKey: lookup.keyText(row.automation.id, row.controlKey, row.controlKeyText),
  };
}

async function toSummaries(factoryId: string, rows: SummaryRow[], db: DbOrTx): Promise<RunSummary[]> {
  const lookup = await lookUpOutcomes(factoryId, rows.map((row) => ({ ...row, automationId: row.automation.id })), db);
  return rows.map((row) => toSummary(row, lookup));
}

export const RUN_PAGE_SIZE = 50;

/** Newest first; filtered by automation and/or delivery log entry; `before`: only runs after that one in this order. */
export async function listRuns(
  factoryId: string,
  filter: { automationId?: string; deliveryId?: string; limit?: number; before?: TimeCursor },
  db: DbOrTx = prisma,
): Promise<RunSummary[]> {
  const { before } = filter;
  const rows = await db.run.findMany({
    where: {
      factoryId,
      automationId: filter.automationId,
      deliveryId: filter.deliveryId,
      ...(before ? { OR: [{ createdAt: { lt: before.at } }, { createdAt: before.at, id: { lt: before.id } }] } : {}),
    },
    select: summarySelect,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(filter.limit ?? RUN_PAGE_SIZE, 1), RUNS_PER_API_PAGE_MAX + 1),
  });
  return toSummaries(factoryId, rows, db);
}

/** One page of GET .../runs: `limit` runs (default 50) after `cursor`, and the cursor of the next page. */
export async function listRunsPage(
  factoryId: string,
  query: { automation?: string; delivery?: string; limit?: number; cursor?: string },
  db: DbOrTx = prisma,
): Promise<{ runs: RunSummary[]; nextCursor: string | null }> {
  const limit = query.limit ?? RUN_PAGE_SIZE;
  const before = query.cursor ? decodeTimeCursor(query.cursor) : undefined;
  const rows = await listRuns(factoryId, { automationId: query.automation, deliveryId: query.delivery, limit: limit + 1, before }, db);
  const { page, nextCursor } = keysetPage(rows, limit, (run) => ({ at: run.createdAt, id: run.id }));
  return { runs: page, nextCursor };
}

export async function getRun(factoryId: string, id: string, db: DbOrTx = prisma): Promise<RunView> {
  const row = await db.run.findFirst({
    where: { id, factoryId },
    select: {
      ...summarySelect,
      delivery: { select: { ...summarySelect.delivery.select, body: true } },
      prompt: true,
      envelope: true,
      payload: true,
      output: true,
      error: true,
      cancelRequestedAt: true,
      outcomeDeliveryId: true,
      outcomeDetail: true,
    },
  });
  if (!row) throw notFound('No run with this id in this factory');
  const canceller = row.cancelRequestedAt && row.outcomeDeliveryId ? await db.delivery.findFirst({ where: { id: row.outcomeDeliveryId, webhook: { factoryId } }, select: summarySelect.delivery.select }) : null;
  // The payload is the delivery's stored body (not a copy), as the executor receives it.
  const payload = row.payload ?? row.delivery?.body ?? null;
  const [summary] = await toSummaries(factoryId, [row], db);
  return {
    ...summary!,
    prompt: row.prompt,
    envelope: row.envelope as RunEnvelope,
    attachments: payload === null ? [] : payloadAttachments(payload),
    output: row.output,
    error: row.error,
    cancel: row.cancelRequestedAt
      ? {
          requestedAt: row.cancelRequestedAt,
          delivery: canceller ? toDelivery(canceller) : null,
          by: row.outcomeDeliveryId ? null : row.outcomeDetail,
        }
      : null,
  };
}
