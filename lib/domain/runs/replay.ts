import 'server-only';
import { prisma, type Tx } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import { activeTriggersSql, newRunId, runsToStart, type ActiveTrigger } from '@/lib/domain/runs/start';
import { currentTraceparent } from '@/lib/platform/tracing';
import { wakeScheduler } from '@/lib/domain/run-control/wake';

// Replay (admins): re-evaluates a stored Accepted delivery against today's
// automations, for example after a filter was fixed. It starts runs for the
// matching enabled automations that have not run for this delivery yet (the
// (automation, delivery) unique key makes that exact, even for two replays
// at once), records the replay on the log entry, and never re-checks
// authentication or signature age: the delivery was authenticated when it
// arrived. A deleted webhook's deliveries cannot be replayed (its triggers
// never fire); a disabled webhook's can. Like the ingress, it starts nothing
// while the factory's run queue is full (TRIPLINE_RUN_QUEUE_LIMIT). An
// automation with run control gets its run pending in its group, as at
// arrival: the scheduler decides it (lib/domain/run-control).

export type ReplayResult = {
  started: { runId: string; automationId: string; automationName: string }[];
  /** Matching automations that already have a run for this delivery. */
  alreadyRun: { automationId: string; automationName: string }[];
  replayCount: number;
};

/**
 * What replaying one delivery inside the caller's transaction came to: the
 * single Replay turns the refusals into errors; a bulk replay job
 * (lib/domain/replay-jobs) skips an entry that is gone or not Accepted and waits
 * while the run queue is full.
 */
export type ReplayOutcome =
  | { kind: 'replayed'; result: ReplayResult }
  | { kind: 'not_found' }
  | { kind: 'not_replayable' }
  | { kind: 'queue_full'; limit: number };

/** Replays one delivery within `tx` (the caller commits): the single Replay and each item of a bulk replay job. */
export async function replayDeliveryInTx(tx: Tx, factoryId: string, uid: string, deliveryRowId: string, actor: { email: string }): Promise<ReplayOutcome> {
  const [delivery] = await tx.$queryRawUnsafe<
    {
      id: string;
      deliveryId: string;
      status: string;
      body: string | null;
      eventType: string | null;
      headers: Record<string, string> | null;
      webhookName: string;
      webhookUid: string;
      triggers: ActiveTrigger[] | null;
    }[]
  >(
    `SELECT d."id", d."deliveryId", d."status"::text AS "status", d."body", d."eventType", d."headers", w."name" AS "webhookName", w."uid" AS "webhookUid",
            ${activeTriggersSql('w."uid"', 'w."factoryId"')} AS "triggers"
       FROM "Delivery" d JOIN "Webhook" w ON w."id" = d."webhookId"
      WHERE d."id" = $1 AND w."uid" = $2 AND w."factoryId" = $3 AND w."deletedAt" IS NULL
        FOR UPDATE OF d`,
    deliveryRowId,
    uid,
    factoryId,
  );
  if (!delivery) return { kind: 'not_found' };
  if (delivery.status !== 'accepted' || delivery.body === null) return { kind: 'not_replayable' };
  const triggers = delivery.triggers ?? [];
  const runs = runsToStart({ name: delivery.webhookName, uid: delivery.webhookUid }, triggers, {
    deliveryId: delivery.deliveryId,
    text: delivery.body,
    value: JSON.parse(delivery.body) as unknown,
    eventType: delivery.eventType,
    headers: delivery.headers,
  });
  if (runs.length) {
    const limit = env().runQueueLimit;
    const [queue] = await tx.$queryRawUnsafe<{ queued: number }[]>(
      `SELECT count(*)::int AS "queued" FROM (SELECT 1 FROM "Run" WHERE "status" = 'queued' AND "factoryId" = $1 LIMIT $2) q`,
      factoryId,
      limit,
    );
    if (queue!.queued >= limit) return { kind: 'queue_full', limit };
  }
  // Each run starts with its automation's prompt as it is now (the triggers carry no prompts).
  const prompts = new Map(
    (await tx.automation.findMany({ where: { factoryId, id: { in: runs.map((run) => run.automationId) } }, select: { id: true, prompt: true } })).map((a) => [a.id, a.prompt]),
  );
  const traceparent = currentTraceparent();
  const created = runs.length
    ? await tx.run.createManyAndReturn({
        // With traces on, the replay's span (a single replay's request, or a bulk job's batch) is the runs' parent.
        // Under run control a replayed run goes through the scheduler like an arriving one: pending, with its group's key.
        data: runs.map(({ group, ...run }) => ({
          ...run,
          prompt: prompts.get(run.automationId) ?? '',
          id: newRunId(),
          factoryId,
          deliveryId: delivery.id,
          replay: true,
          traceparent,
          ...(group && { status: 'pending' as const, controlKey: group.key, controlKeyText: group.keyText }),
        })),
        skipDuplicates: true,
        select: { id: true, automationId: true },
      })
    : [];
  const names = new Map(triggers.map((t) => [t.automationId, t.automationName]));
  const startedIds = new Set(created.map((run) => run.automationId));
  const updated = await tx.delivery.update({
    where: { id: delivery.id },
    data: { replayedAt: new Date(), replayedBy: actor.email, replayCount: { increment: 1 } },
    select: { replayCount: true },
  });
  return {
    kind: 'replayed',
    result: {
      started: created.map((run) => ({ runId: run.id, automationId: run.automationId, automationName: names.get(run.automationId) ?? '' })),
      alreadyRun: runs
        .filter((run) => !startedIds.has(run.automationId))
        .map((run) => ({ automationId: run.automationId, automationName: names.get(run.automationId) ?? '' })),
      replayCount: updated.replayCount,
    },
  };
}

export async function replayDelivery(factoryId: string, uid: string, deliveryRowId: string, actor: { email: string }, db = prisma): Promise<ReplayResult> {
  const outcome = await db.$transaction((tx) => replayDeliveryInTx(tx, factoryId, uid, deliveryRowId, actor));
  switch (outcome.kind) {
    case 'replayed':
      // Runs under run control were inserted pending (a bulk replay's are found by the scheduler's poll).
      wakeScheduler();
      return outcome.result;
    case 'not_found':
      throw new AppError('not_found', 'No delivery log entry with this id for this webhook');
    case 'not_replayable':
      throw new AppError('conflict', 'Only Accepted deliveries can be replayed: duplicates and rejected requests keep no payload');
    case 'queue_full':
      throw new AppError('conflict', `Run queue full: this factory already has ${outcome.limit.toLocaleString('en-US')} queued runs; replay once some have finished`);
  }
}
