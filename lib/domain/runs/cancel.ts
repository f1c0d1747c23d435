import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { AppError } from '@/lib/platform/http/errors';
import { markGroupsDirty } from '@/lib/domain/run-control/dirty';
import { controlledRunsEnded, type EndedRun } from '@/lib/domain/run-control/ended';
import { getRun, type RunView } from '@/lib/domain/runs/service';
import { CANCELLABLE_RUN_STATUSES, sqlStatusList } from '@/lib/domain/run-status/statuses';

// Cancelling a run (docs/automations.md, Cancelling a run; docs/decisions/0102).
// A request is Run.cancelRequestedAt: a run that has not started ends
// cancelled at once; a running one is stopped by the worker that holds it, on
// whichever instance, within about a second (lib/domain/runs/worker.ts).

/** What a run that never started records as its error once cancelled. */
export const CANCELLED_BEFORE_START = 'The run was cancelled before it started.';


/**
 * Cancels a run of the factory for a member (admins and editors, the
 * adapters' guard): `actor.email` is recorded as who cancelled it
 * (outcomeDetail; outcomeDeliveryId is null, no delivery did). A second cancel
 * of a run already cancelled, or already being stopped, changes nothing,
 * and the first canceller stays on record; a run that has ended otherwise is a conflict.
 */
export async function cancelRun(factoryId: string, id: string, actor: { email: string }, db: DbOrTx = prisma): Promise<RunView> {
  // One statement, so a run moving between queued and running (a claim, an
  // HTTP retry) meanwhile is cancelled whichever it is. SET reads the old row.
  // A run under run control that ends here frees its group: the group is
  // marked for its scheduler in the same statement (a waiting run may start).
  const ended = await db.$queryRawUnsafe<EndedRun[]>(
    `WITH ended AS (
     UPDATE "Run"
        SET "cancelRequestedAt" = COALESCE("cancelRequestedAt", now()),
            "outcomeDetail" = CASE WHEN "cancelRequestedAt" IS NULL THEN $3 ELSE "outcomeDetail" END,
            "outcomeDeliveryId" = CASE WHEN "cancelRequestedAt" IS NULL THEN NULL ELSE "outcomeDeliveryId" END,
            "outcomeRunId" = CASE WHEN "cancelRequestedAt" IS NULL THEN NULL ELSE "outcomeRunId" END,
            "status" = (CASE WHEN "status" = 'running' THEN 'running' ELSE 'cancelled' END)::"RunStatus",
            "finishedAt" = CASE WHEN "status" = 'running' THEN NULL ELSE now() END,
            "lockedBy" = CASE WHEN "status" = 'running' THEN "lockedBy" END,
            "lockedUntil" = CASE WHEN "status" = 'running' THEN "lockedUntil" END,
            "error" = CASE WHEN "status" = 'running' THEN "error" ELSE $4 END
      WHERE "id" = $1 AND "factoryId" = $2 AND "status" IN (${sqlStatusList(CANCELLABLE_RUN_STATUSES)})
     RETURNING "automationId", "controlKey", "status"
     ),
     cancelled AS (SELECT * FROM ended WHERE "status" = 'cancelled'),
     marked AS (${markGroupsDirty('cancelled')} RETURNING 1)
     SELECT "controlKey", "status"::text AS "status" FROM ended`,
    id,
    factoryId,
    actor.email,
    CANCELLED_BEFORE_START,
  );
  // Ended here (not one a worker is stopping): this process's scheduler decides its group at once, and it is counted.
  controlledRunsEnded(ended);
  const run = await getRun(factoryId, id, db);
  if (run.status !== 'cancelled' && !run.cancel) {
    throw new AppError('conflict', `Run ${id} is ${run.status}: only a run that has not ended can be cancelled`);
  }
  return run;
}
