import 'server-only';
import { prisma, type Db } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { isNotified, notifiedStates, type HealthState } from '@/lib/domain/health/classify';
import { healthNow } from '@/lib/domain/health/clock';
import { recordSpentBudgets, spentDeliveryBudgets } from '@/lib/domain/health/rate-limits';
import { refreshRollups } from '@/lib/domain/health/rollups';
import { healthOf, type WebhookHealthView } from '@/lib/domain/health/service';
import { enqueueEvent, factoryRef } from '@/lib/domain/notifications/service';

// The health job, run by every instance's housekeeping loop every
// TRIPLINE_HEALTH_INTERVAL seconds: recompute the recent rollups, note spent
// rate limits, evaluate every live webhook, and queue a notification for
// each change of state (one when a condition starts, one when it ends).
// WebhookHealth keeps the last state; the change is written with a
// compare-and-set on it in the transaction that queues the notification, so
// with several instances exactly one of them queues each transition.
// Failed runs (after their last attempt) are found the same way, from a
// watermark of the last finishedAt seen.

const RUNS_WATERMARK_KEY = 'notifications-runs-failed-until';

type Watched = { id: string; uid: string; name: string; factoryId: string; createdAt: Date; expectedIntervalSeconds: number | null; factory: { slug: string; name: string } };

function webhookRef(webhook: Watched) {
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

async function applyTransition(db: Db, webhook: Watched, previous: string | null, health: WebhookHealthView, now: Date): Promise<void> {
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

export async function checkWebhookHealth(db: Db = prisma): Promise<void> {
  await refreshRollups(db);
  const webhooks: (Watched & { health: { state: string } | null })[] = await db.webhook.findMany({
    where: { deletedAt: null, enabled: true, credentialEncrypted: { not: null } },
    select: {
      id: true,
      uid: true,
      name: true,
      factoryId: true,
      createdAt: true,
      expectedIntervalSeconds: true,
      factory: { select: { slug: true, name: true } },
      health: { select: { state: true } },
    },
  });
  await recordSpentBudgets(await spentDeliveryBudgets(webhooks), db);
  const now = await healthNow(db);
  const health = await healthOf(webhooks, db, now);
  for (const webhook of webhooks) {
    const current = health.get(webhook.id)!;
    const previous = webhook.health?.state ?? null;
    if (previous !== current.state) await applyTransition(db, webhook, previous, current, now);
  }
}

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
  await db.$transaction(async (tx) => {
    // Claims the window: a second instance reading the same mark updates nothing and sends nothing.
    const claimed = await tx.instanceSetting.updateMany({ where: { key: RUNS_WATERMARK_KEY, value: mark.value }, data: { value: String(until.getTime()) } });
    if (claimed.count !== 1) return;
    const runs = await tx.run.findMany({
      where: { status: 'failed', finishedAt: { gt: new Date(Number(mark.value)), lte: until } },
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
      take: 500,
    });
    for (const run of runs) {
      const factory = factoryRef(run.factory);
      await enqueueEvent(tx, run.factoryId, 'run.failed', {
        factory,
        automation: { id: run.automation.id, name: run.automation.name, url: `${factory.url}/automations/${run.automation.id}` },
        run: { id: run.id, attempts: run.attempts, error: run.error, finishedAt: run.finishedAt?.toISOString() ?? null, url: `${factory.url}/automations/${run.automation.id}/runs/${run.id}` },
        // The delivery that started it: which webhook, which delivery, what kind of event (null when the sender names none).
        delivery: run.delivery
          ? { deliveryId: run.delivery.deliveryId, eventType: run.delivery.eventType, webhook: { uid: run.delivery.webhook.uid, name: run.delivery.webhook.name } }
          : null,
      });
    }
  });
}
