import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { notFound } from '@/lib/platform/http/errors';
import { payloadAttachments, type RunAttachment, type RunEnvelope } from '@/lib/domain/runs/envelope';

// Reading runs: the Runs views (per automation, per delivery) and the run
// page. Runs are created by the ingress (lib/ingress/record.ts) and moved
// through their lifecycle by the workers (lib/domain/runs/worker.ts).

/** A run's status, which is also its delivery's outcome under run control (prisma/schema.prisma, RunStatus). */
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'pending' | 'waiting' | 'debouncing' | 'throttled' | 'superseded' | 'debounced' | 'skipped' | 'cancelled';

export type RunSummary = {
  id: string;
  status: RunStatus;
  automation: { id: string; name: string };
  /** webhookDeleted: the delivery log of a deleted webhook cannot be browsed, so the dashboard shows the ID without a link. */
  delivery: { id: string; deliveryId: string; webhookUid: string; webhookName: string; webhookDeleted: boolean } | null;
  attempts: number;
  /** Started by an admin's replay of the delivery. */
  replay: boolean;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
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

const summarySelect = {
  id: true,
  status: true,
  attempts: true,
  replay: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  automation: { select: { id: true, name: true } },
  delivery: { select: { id: true, deliveryId: true, webhook: { select: { uid: true, name: true, deletedAt: true } } } },
} as const;

type SummaryRow = {
  id: string;
  status: RunStatus;
  attempts: number;
  replay: boolean;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  automation: { id: string; name: string };
  delivery: { id: string; deliveryId: string; webhook: { uid: string; name: string; deletedAt: Date | null } } | null;
};

function toDelivery(delivery: SummaryRow['delivery']): RunSummary['delivery'] {
  if (!delivery) return null;
  return {
    id: delivery.id,
    deliveryId: delivery.deliveryId,
    webhookUid: delivery.webhook.uid,
    webhookName: delivery.webhook.name,
    webhookDeleted: delivery.webhook.deletedAt !== null,
  };
}

function toSummary(row: SummaryRow): RunSummary {
  return {
    id: row.id,
    status: row.status,
    automation: row.automation,
    delivery: toDelivery(row.delivery),
    attempts: row.attempts,
    replay: row.replay,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export const RUN_PAGE_SIZE = 50;

/** Newest first; filtered by automation and/or delivery log entry. */
export async function listRuns(
  factoryId: string,
  filter: { automationId?: string; deliveryId?: string; limit?: number },
  db: DbOrTx = prisma,
): Promise<RunSummary[]> {
  const rows = await db.run.findMany({
    where: { factoryId, automationId: filter.automationId, deliveryId: filter.deliveryId },
    select: summarySelect,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(filter.limit ?? RUN_PAGE_SIZE, 1), 200),
  });
  return rows.map(toSummary);
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
  return {
    ...toSummary(row),
    prompt: row.prompt,
    envelope: row.envelope as RunEnvelope,
    attachments: payload === null ? [] : payloadAttachments(payload),
    output: row.output,
    error: row.error,
    cancel: row.cancelRequestedAt
      ? {
          requestedAt: row.cancelRequestedAt,
          delivery: toDelivery(canceller),
          by: row.outcomeDeliveryId ? null : row.outcomeDetail,
        }
      : null,
  };
}
