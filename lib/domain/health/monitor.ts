import 'server-only';
import { prisma, type Db } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { isNotified, notifiedStates, type HealthState } from '@/lib/domain/health/classify';
import { healthNow } from '@/lib/domain/health/clock';
import { recordSpentBudgets, spentDeliveryBudgets } from '@/lib/domain/health/rate-limits';
import { refreshRollups } from '@/lib/domain/health/rollups';
import { healthOf, type WebhookHealthView } from '@/lib/domain/health/service';
import { enqueueEvent, enqueueEvents, factoryRef } from '@/lib/domain/notifications/service';

// The health job, run by every instance's housekeeping loop every
// TRIPLINE_HEALTH_INTERVAL seconds: recompute the recent rollups, note spent
// rate limits, evaluate every live webhook, and queue a notification for
// each change of state (one when a condition starts, one when it ends).
// WebhookHealth keeps the last state; the change is written with a
// compare-and-set on it in the transaction that queues the notification, so
// with several instances exactly one of them queues each transition.
// Failed runs (after their last attempt) are found the same way, from a
// watermark of the last finishedAt seen.

export const RUNS_WATERMARK_KEY = 'notifications-runs-failed-until';

/** A watched webhook as the pass reads it: what health needs, and its last state. */
type Watched = { id: string; uid: string; createdAt: Date; expectedIntervalSeconds: number | null; state: string | null };
/** What a notification names: read only for the webhooks whose transition sends one. */
type Named = { id: string; uid: string; name: string; factoryId: string; factory: { slug: string; name: string } };

/** State changes written by one statement: a compare-and-set on each row, as applyTransition's, chunked. */
const QUIET_BATCH = 5_000;

function webhookRef(webhook: Named) {
  return {
    uid: webhook.uid,
    name: webhook.name,
    url: `${env().baseUrl}/f/${webhook.factory.slug}/automations/webhooks/${webhook.uid}`,
  };
}

/** The event (if any) that a change of state from `previous` to `next` sends. */
export function transitionEvent(previous: string | null, next: HealthState) {
  if (previous === next) return null;
  if (isNotified(next)) return notifiedStates[next];
  if (previous !== null && isNotified(previous)) return 'webhook.recovered' as const;
  return null;
}

/** One change that sends a notification: the compare-and-set and the notification in one transaction. */
async function applyTransition(db: Db, webhook: Named, previous: string | null, health: WebhookHealthView, now: Date): Promise<void> {
  const type = transitionEvent(previous, health.state);
  await db.$transaction(async (tx) => {
    const changed =
      previous === null
        ? (await tx.webhookHealth.createMany({ data: [{ webhookId: webhook.id, state: health.state, since: now }], skipDuplicates: true })).count
        : (await tx.webhookHealth.updateMany({ where: { webhookId: webhook.id, state: previous }, data: { state: health.state, since: now } })).count;
    if (changed !== 1 || !type) return;
    await enqueueEvent(tx, webhook.factoryId, type, {
      factory: factoryRef(webhook.factory),
      webhook: webhookRef(webhook),
      health: { state: health.state, reason: health.reason, lastAcceptedAt: health.lastAcceptedAt?.toISOString() ?? null },
      previous: previous,
    });
  });
}

/**
 * Changes that send nothing (a new webhook's first state, new to healthy, one
 * unnotified problem to another), a statement per QUIET_BATCH webhooks
 * instead of a transaction each: after a load over 20,000 webhooks most of
 * them change from new to healthy at once, and a transaction each took 6.6 s
 * (docs/benchmarks.md, Many teams). Each row is still a compare-and-set on
 * the state this pass read, so an instance that lost the race changes nothing.
 */
async function applyQuietTransitions(db: Db, changes: { id: string; previous: string | null; next: string }[], now: Date): Promise<void> {
  for (let i = 0; i < changes.length; i += QUIET_BATCH) {
    const batch = changes.slice(i, i + QUIET_BATCH);
    const created = batch.filter((c) => c.previous === null);
    const updated = batch.filter((c) => c.previous !== null);
    if (created.length > 0) {
      await db.$executeRawUnsafe(
        `INSERT INTO "WebhookHealth" ("webhookId", "state", "since", "updatedAt")
         SELECT c.id, c.next, $3, $4 FROM unnest($1::text[], $2::text[]) AS c(id, next)
         ON CONFLICT ("webhookId") DO NOTHING`,
        created.map((c) => c.id),
        created.map((c) => c.next),
        now,
        new Date(),
      );
    }
    if (updated.length > 0) {
      await db.$executeRawUnsafe(
        `UPDATE "WebhookHealth" h SET "state" = c.next, "since" = $4, "updatedAt" = $5
         FROM unnest($1::text[], $2::text[], $3::text[]) AS c(id, previous, next)
         WHERE h."webhookId" = c.id AND h."state" = c.previous`,
        updated.map((c) => c.id),
        updated.map((c) => c.previous),
        updated.map((c) => c.next),
        now,
        new Date(),
      );
    }
  }
}

/** Every webhook the job watches (live, enabled, with a credential), with its last state: one query, no relations. */
function watchedWebhooks(db: Db): Promise<Watched[]> {
  return db.$queryRawUnsafe<Watched[]>(
    `SELECT w."id", w."uid", w."createdAt", w."expectedIntervalSeconds", h."state"
     FROM "Webhook" w LEFT JOIN "WebhookHealth" h ON h."webhookId" = w."id"
     WHERE w."deletedAt" IS NULL AND w."enabled" AND w."credentialEncrypted" IS NOT NULL`,
  );
}

export async function checkWebhookHealth(db: Db = prisma): Promise<void> {
  await refreshRollups(db);
  const webhooks = await watchedWebhooks(db);
  await recordSpentBudgets(await spentDeliveryBudgets(webhooks), db);
  const now = await healthNow(db);
  const health = await healthOf(webhooks, db, now, { all: true });
  const quiet: { id: string; previous: string | null; next: string }[] = [];
  const notified: { id: string; previous: string | null; health: WebhookHealthView }[] = [];
  for (const webhook of webhooks) {
    const current = health.get(webhook.id)!;
    if (webhook.state === current.state) continue;
    if (transitionEvent(webhook.state, current.state)) notified.push({ id: webhook.id, previous: webhook.state, health: current });
    else quiet.push({ id: webhook.id, previous: webhook.state, next: current.state });
  }
  await applyQuietTransitions(db, quiet, now);
  if (notified.length === 0) return;
  const named = new Map(
    (
      await db.webhook.findMany({
        where: { id: { in: notified.map((n) => n.id) } },
        select: { id: true, uid: true, name: true, factoryId: true, factory: { select: { slug: true, name: true } } },
      })
    ).map((w) => [w.id, w]),
  );
  for (const change of notified) {
    const webhook = named.get(change.id);
    if (webhook) await applyTransition(db, webhook, change.previous, change.health, now);
  }
}

/** Failed runs announced per check; more wait for the next check, in order. */
export const FAILED_RUNS_PER_CHECK = 500;

/** Queues run.failed for runs that failed (after their last attempt) since the last check. */
export async function checkFailedRuns(db: Db = prisma): Promise<void> {
  const mark = await db.instanceSetting.findUnique({ where: { key: RUNS_WATERMARK_KEY }, select: { value: true } });
  // A little behind now: a run whose failure commits late still falls in the next window.
  const until = new Date(Date.now() - 2_000);
  if (!mark) {
    // The first check starts now: runs that failed before notifications existed are not announced.
    await db.instanceSetting.createMany({ data: [{ key: RUNS_WATERMARK_KEY, value: String(until.getTime()) }], skipDuplicates: true });
    return;
  }
  // The mark is the time up to which failures were announced, and after a full batch the last run
  // announced at that time: `<ms>` or `<ms>|<run id>`.
  const [markMs, markId] = mark.value.split('|') as [string, string | undefined];
  const from = new Date(Number(markMs));
  await db.$transaction(
    async (tx) => {
      const runs = await tx.run.findMany({
        where: {
          status: 'failed',
          finishedAt: { lte: until },
          OR: [{ finishedAt: { gt: from } }, ...(markId ? [{ finishedAt: from, id: { gt: markId } }] : [])],
        },
        orderBy: [{ finishedAt: 'asc' }, { id: 'asc' }],
        select: {
          id: true,
          factoryId: true,
          error: true,
          attempts: true,
          finishedAt: true,
          automation: { select: { id: true, name: true } },
          factory: { select: { slug: true, name: true } },
          delivery: { select: { deliveryId: true, eventType: true, webhook: { select: { uid: true, name: true } } } },
        },
        take: FAILED_RUNS_PER_CHECK,
      });
      // A full batch: the next check goes on after its last run, so a burst of failures is announced whole, oldest first.
      const last = runs.length === FAILED_RUNS_PER_CHECK ? runs.at(-1) : undefined;
      const next = last?.finishedAt ? `${last.finishedAt.getTime()}|${last.id}` : String(until.getTime());
      // Claims the window: a second instance reading the same mark updates nothing and sends nothing.
      const claimed = await tx.instanceSetting.updateMany({ where: { key: RUNS_WATERMARK_KEY, value: mark.value }, data: { value: next } });
      if (claimed.count !== 1) return;
      await enqueueEvents(
        tx,
        runs.map((run) => {
          const factory = factoryRef(run.factory);
          return {
            factoryId: run.factoryId,
            type: 'run.failed' as const,
            data: {
              factory,
              automation: { id: run.automation.id, name: run.automation.name, url: `${factory.url}/automations/${run.automation.id}` },
              run: { id: run.id, attempts: run.attempts, error: run.error, finishedAt: run.finishedAt?.toISOString() ?? null, url: `${factory.url}/automations/${run.automation.id}/runs/${run.id}` },
              // The delivery that started it: which webhook, which delivery, what kind of event (null when the sender names none).
              delivery: run.delivery
                ? { deliveryId: run.delivery.deliveryId, eventType: run.delivery.eventType, webhook: { uid: run.delivery.webhook.uid, name: run.delivery.webhook.name } }
                : null,
            },
          };
        }),
      );
    },
    // The read and the one insert of a full batch, with room for a busy database.
    { timeout: 30_000, maxWait: 10_000 },
  );
}
