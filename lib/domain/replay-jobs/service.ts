import 'server-only';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { lockFactory } from '@/lib/platform/db/locks';
import { getAutomation } from '@/lib/domain/automations/service';
import { withBacktestGate } from '@/lib/domain/automations/backtest-gate';
import { backtestMatches } from '@/lib/domain/automations/test-filter';
import { timeOrderedId } from '@/lib/platform/crypto/random';
import { deliveryLogQuery, runLogQuery, webhookIdOrThrow } from '@/lib/domain/deliveries/service';
import { AppError } from '@/lib/platform/http/errors';
import { PREVIEW_ENTRIES, REPLAY_JOB_MAX, replaySelectionSchema, type ReplaySelection, type ReplaySelectionInput } from '@/lib/domain/replay-jobs/schemas';
import { wakeReplayWorker } from '@/lib/domain/replay-jobs/wake';

// Bulk replay (docs/replay.md): the selection, its preview, and the job's
// start, state and cancel. The worker that replays the items is
// lib/domain/replay-jobs/worker.ts.
//
// The selection is resolved with the log's own filter SQL
// (deliveryLogQuery) or Backtest's own evaluator (backtestMatches), and
// frozen at start as the job's items, oldest first, so the job's count never
// drifts while it runs. A selection larger than REPLAY_JOB_MAX is refused
// with its size, not cut: the person narrows it (a time range) and knows
// exactly what is replayed.

export type ReplayJobStatus = 'running' | 'completed' | 'cancelled';

export type ReplayJobView = {
  id: string;
  status: ReplayJobStatus;
  webhookUid: string;
  webhookName: string | null;
  selection: Record<string, unknown>;
  total: number;
  done: number;
  runsStarted: number;
  skipped: number;
  waiting: string | null;
  createdBy: string;
  createdAt: Date;
  finishedAt: Date | null;
  cancelledBy: string | null;
};

export type SelectionPreview = {
  webhook: { uid: string; name: string };
  /** How many deliveries the selection holds; when `tooMany`, at least this many (counting stops past the maximum). */
  count: number;
  tooMany: boolean;
  max: number;
  /** Backtest only: Accepted deliveries it could not evaluate (past its bound on bodies without a jsonb copy), not selected. */
  untested: number;
  /** The newest entries of the selection. */
  deliveries: { id: string; deliveryId: string; receivedAt: Date; eventType: string | null }[];
};

type Resolved = { webhookId: string; webhook: { uid: string; name: string }; ids: string[]; count: number; tooMany: boolean; untested: number };

/** Resolves a selection to the row ids of its newest deliveries (at most REPLAY_JOB_MAX + 1, newest first). */
async function resolveSelection(factoryId: string, selection: ReplaySelection, db: Db): Promise<Resolved> {
  if (selection.automation) {
    const automation = await getAutomation(factoryId, selection.automation, db).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'not_found') throw new AppError('validation_failed', 'No such automation', { automation: 'No automation with this id in this factory' });
      throw error;
    });
    const index = selection.trigger ?? 0;
    const trigger = automation.triggers[index];
    if (!trigger) {
      const count = automation.triggers.length;
      throw new AppError('validation_failed', 'No such trigger', { trigger: count === 0 ? 'This automation has no triggers' : `Use a trigger index from 0 to ${count - 1}` });
    }
    const uid = trigger.trigger.filter.webhook_ids[0]!;
    if (selection.webhook && selection.webhook !== uid) {
      throw new AppError('validation_failed', 'The trigger is on another webhook', { webhook: `This trigger selects the webhook ${uid}` });
    }
    // Within Backtest's own gate: the same concurrency and rate bounds, whoever asks (429 past them).
    const matches = await withBacktestGate(factoryId, () => backtestMatches(factoryId, trigger.trigger, REPLAY_JOB_MAX + 1, db));
    const webhook = await db.webhook.findUniqueOrThrow({ where: { id: matches.webhookId }, select: { uid: true, name: true } });
    return {
      webhookId: matches.webhookId,
      webhook,
      ids: matches.ids,
      count: matches.matched,
      tooMany: matches.matched > REPLAY_JOB_MAX,
      untested: matches.untested,
    };
  }
  const uid = selection.webhook!;
  const webhookId = await webhookIdOrThrow(db, factoryId, uid).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') throw new AppError('validation_failed', 'No such webhook', { webhook: `No webhook with UID ${uid} in this factory` });
    throw error;
  });
  const webhook = await db.webhook.findUniqueOrThrow({ where: { id: webhookId }, select: { uid: true, name: true } });
  // The log's own filters, Accepted entries only (the others keep no payload). Counting stops past the maximum: a
  // selection larger than a job is refused whatever its size, and its exact count could read the whole log.
  const query = deliveryLogQuery(
    webhookId,
    { status: 'accepted', q: selection.q, event: selection.event, from: selection.from, to: selection.to },
    { columns: `"id", "receivedAt"`, limit: REPLAY_JOB_MAX + 1 },
  );
  const rows = await runLogQuery<{ id: string }>(db, query);
  return { webhookId, webhook, ids: rows.map((row) => row.id), count: rows.length, tooMany: rows.length > REPLAY_JOB_MAX, untested: 0 };
}

/** How many deliveries a selection holds, and its newest few: what the person sees before starting. Changes nothing. */
export async function previewSelection(factoryId: string, input: ReplaySelectionInput, db: Db = prisma): Promise<SelectionPreview> {
  const selection = replaySelectionSchema.parse(input);
  const resolved = await resolveSelection(factoryId, selection, db);
  const newest = resolved.ids.slice(0, PREVIEW_ENTRIES);
  const rows = await db.delivery.findMany({ where: { id: { in: newest } }, select: { id: true, deliveryId: true, receivedAt: true, eventType: true } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    webhook: resolved.webhook,
    count: resolved.tooMany ? REPLAY_JOB_MAX + 1 : resolved.count,
    tooMany: resolved.tooMany,
    max: REPLAY_JOB_MAX,
    untested: resolved.untested,
    deliveries: newest.flatMap((id) => byId.get(id) ?? []),
  };
}

/** The selection as stored on the job and shown back: the given filters, dates as ISO text. */
function storedSelection(selection: ReplaySelection, uid: string): Record<string, unknown> {
  const out: Record<string, unknown> = { webhook: uid };
  if (selection.automation) {
    out.automation = selection.automation;
    out.trigger = selection.trigger ?? 0;
  } else {
    out.status = 'accepted';
    if (selection.q) out.q = selection.q;
    if (selection.event) out.event = selection.event;
    if (selection.from) out.from = selection.from.toISOString();
    if (selection.to) out.to = selection.to.toISOString();
  }
  return out;
}

const jobSelect = {
  id: true,
  status: true,
  webhookUid: true,
  selection: true,
  total: true,
  done: true,
  runsStarted: true,
  skipped: true,
  waiting: true,
  createdBy: true,
  createdAt: true,
  finishedAt: true,
  cancelledBy: true,
} as const;

type JobRow = Omit<ReplayJobView, 'webhookName' | 'selection'> & { selection: unknown };

async function toViews(factoryId: string, rows: JobRow[], db: DbOrTx): Promise<ReplayJobView[]> {
  const webhooks = await db.webhook.findMany({ where: { factoryId, uid: { in: [...new Set(rows.map((row) => row.webhookUid))] } }, select: { uid: true, name: true } });
  const names = new Map(webhooks.map((w) => [w.uid, w.name]));
  return rows.map((row) => ({ ...row, selection: row.selection as Record<string, unknown>, webhookName: names.get(row.webhookUid) ?? null }));
}

export const newReplayJobId = () => timeOrderedId('rpl_', 12);

/**
 * Starts a replay job over the selection (admins: a replay starts runs, as
 * the single Replay does). Refused with 409 while another job of the factory
 * is running (the factory row lock serialises two starts), and with 422 when
 * the selection is empty or larger than REPLAY_JOB_MAX.
 */
export async function startReplayJob(factoryId: string, input: ReplaySelectionInput, actor: { email: string }, db: Db = prisma): Promise<ReplayJobView> {
  const selection = replaySelectionSchema.parse(input);
  const resolved = await resolveSelection(factoryId, selection, db);
  if (resolved.tooMany) {
    const counted = resolved.count > REPLAY_JOB_MAX + 1 ? resolved.count.toLocaleString('en-US') : `more than ${REPLAY_JOB_MAX.toLocaleString('en-US')}`;
    throw new AppError('validation_failed', `The selection holds ${counted} deliveries; a job replays at most ${REPLAY_JOB_MAX.toLocaleString('en-US')}. Narrow it, e.g. with a time range.`, {
      selection: `At most ${REPLAY_JOB_MAX.toLocaleString('en-US')} deliveries per job`,
    });
  }
  if (resolved.ids.length === 0) throw new AppError('validation_failed', 'The selection holds no Accepted deliveries', { selection: 'No Accepted delivery matches' });
  // Oldest first: the deliveries are replayed in the order they arrived.
  const ids = [...resolved.ids].reverse();
  const row = await db.$transaction(
    async (tx) => {
      await lockFactory(tx, factoryId);
      const running = await tx.replayJob.findFirst({ where: { factoryId, status: 'running' }, select: { id: true, done: true, total: true } });
      if (running) {
        throw new AppError(
          'conflict',
          `Replay job ${running.id} is running (${running.done.toLocaleString('en-US')} of ${running.total.toLocaleString('en-US')}); a factory runs one at a time. Wait for it or cancel it.`,
          { job: running.id },
        );
      }
      const id = newReplayJobId();
      const job = await tx.replayJob.create({
        data: { id, factoryId, webhookUid: resolved.webhook.uid, selection: storedSelection(selection, resolved.webhook.uid) as object, total: ids.length, createdBy: actor.email },
        select: jobSelect,
      });
      await tx.replayJobItem.createMany({ data: ids.map((deliveryId, position) => ({ jobId: id, position, deliveryId })) });
      return job;
    },
    { timeout: 30_000 },
  );
  // This instance starts on it at once; the others would find it at their next poll.
  wakeReplayWorker();
  return (await toViews(factoryId, [row], db))[0]!;
}

export async function getReplayJob(factoryId: string, id: string, db: DbOrTx = prisma): Promise<ReplayJobView> {
  const row = await db.replayJob.findFirst({ where: { id, factoryId }, select: jobSelect });
  if (!row) throw new AppError('not_found', 'No replay job with this id in this factory');
  return (await toViews(factoryId, [row], db))[0]!;
}

/** The factory's newest jobs (the running one first, if any), at most `limit`. */
export async function listReplayJobs(factoryId: string, limit = 20, db: DbOrTx = prisma): Promise<ReplayJobView[]> {
  const rows = await db.replayJob.findMany({ where: { factoryId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: Math.min(Math.max(limit, 1), 100), select: jobSelect });
  return toViews(factoryId, rows, db);
}

/**
 * Cancels a running job. The worker replays each item in a transaction that
 * first locks the job's row and checks it is still running, so once this
 * update commits no further delivery is replayed: the item in flight, if
 * any, finished before it (and is counted).
 */
export async function cancelReplayJob(factoryId: string, id: string, actor: { email: string }, db: DbOrTx = prisma): Promise<ReplayJobView> {
  const cancelled = await db.replayJob.updateMany({
    where: { id, factoryId, status: 'running' },
    data: { status: 'cancelled', finishedAt: new Date(), cancelledBy: actor.email, waiting: null, leaseToken: null, leaseUntil: null },
  });
  const job = await getReplayJob(factoryId, id, db);
  if (cancelled.count === 0 && job.status !== 'cancelled') throw new AppError('conflict', `Replay job ${id} is ${job.status}: only a running job can be cancelled`);
  return job;
}

export function replayJobJson(job: ReplayJobView) {
  return {
    id: job.id,
    status: job.status,
    webhook: { uid: job.webhookUid, name: job.webhookName },
    selection: job.selection,
    total: job.total,
    done: job.done,
    replayed: job.done - job.skipped,
    skipped: job.skipped,
    runsStarted: job.runsStarted,
    waiting: job.waiting,
    createdBy: job.createdBy,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    cancelledBy: job.cancelledBy,
  };
}

export function previewJson(preview: SelectionPreview) {
  return {
    webhook: preview.webhook,
    count: preview.count,
    tooMany: preview.tooMany,
    max: preview.max,
    untested: preview.untested,
    deliveries: preview.deliveries.map((d) => ({ id: d.id, deliveryId: d.deliveryId, receivedAt: d.receivedAt.toISOString(), eventType: d.eventType })),
  };
}
