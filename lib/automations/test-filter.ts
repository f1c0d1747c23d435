import 'server-only';
import { prisma, type DbOrTx } from '@/lib/db';
import { describeCheck, evaluateFilter, type FilterCheck } from '@/lib/filters';
import { AppError } from '@/lib/http/errors';
import { getAutomation, webhookState } from '@/lib/automations/service';
import { triggerSchema, type TriggerInput } from '@/lib/automations/schemas';

// Test filter (docs/automations.md, Test filter, Backtest, Why not, Replay): would this stored delivery have started this
// trigger's automation? The answer applies the ingress's own rules, each
// with its reason: the delivery must come from the trigger's webhook, that
// webhook must be live, the payload filter must match, and the automation
// must be enabled. Only Accepted log entries keep a payload, so only they
// can be tested.

export type TestFilterResult = {
  wouldTrigger: boolean;
  webhookCheck: {
    passed: boolean;
    expected: { uid: string; name: string | null };
    actual: { uid: string; name: string };
    reason: string;
  };
  payloadCheck: { passed: boolean; checks: FilterCheck[]; reason: string };
  automationCheck: { passed: boolean; reason: string };
};

async function loadDelivery(factoryId: string, id: string, db: DbOrTx) {
  const delivery = await db.delivery.findFirst({
    where: { id, webhook: { factoryId } },
    select: { id: true, status: true, body: true, deliveryId: true, webhook: { select: { uid: true, name: true } } },
  });
  if (!delivery) throw new AppError('not_found', 'No delivery log entry with this id in this factory', { deliveryId: 'No delivery log entry with this id' });
  if (delivery.status !== 'accepted' || delivery.body === null) {
    throw new AppError('validation_failed', 'Only Accepted deliveries keep their payload; pick an Accepted entry', {
      deliveryId: 'Only Accepted deliveries keep their payload; pick an Accepted entry',
    });
  }
  return { ...delivery, body: delivery.body };
}

/** Tests a trigger as written (saved or not) against a stored delivery. */
export async function testTrigger(
  factoryId: string,
  input: { trigger: TriggerInput; deliveryId: string; automationEnabled: boolean },
  db: DbOrTx = prisma,
): Promise<TestFilterResult> {
  const trigger = triggerSchema.parse(input.trigger);
  const delivery = await loadDelivery(factoryId, input.deliveryId, db);
  const uid = trigger.filter.webhook_ids[0]!;
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid }, select: { name: true, enabled: true, deletedAt: true } });

  const expected = { uid, name: webhook?.name ?? null };
  const actual = delivery.webhook;
  let webhookCheck: TestFilterResult['webhookCheck'];
  if (!webhook) webhookCheck = { passed: false, expected, actual, reason: `no webhook with UID ${uid} exists in this factory` };
  else if (webhook.deletedAt) webhookCheck = { passed: false, expected, actual, reason: `the webhook "${webhook.name}" was deleted, so this trigger never fires` };
  else if (actual.uid !== uid) {
    webhookCheck = { passed: false, expected, actual, reason: `the delivery came to "${actual.name}", and the trigger selects "${webhook.name}"` };
  } else if (!webhook.enabled) {
    webhookCheck = { passed: false, expected, actual, reason: `the webhook "${webhook.name}" is disabled, so it accepts no deliveries` };
  } else webhookCheck = { passed: true, expected, actual, reason: `the delivery came to "${webhook.name}"` };

  // The body was valid JSON when it was accepted; parsing cannot fail.
  const result = evaluateFilter(trigger.filter.payload ?? null, JSON.parse(delivery.body) as unknown);
  const failed = result.checks.filter((check) => !check.passed).length;
  const payloadCheck = {
    passed: result.matched,
    checks: result.checks,
    reason: !trigger.filter.payload
      ? 'no payload filter: every delivery of the webhook matches'
      : result.matched
        ? `all ${result.checks.length} condition${result.checks.length === 1 ? '' : 's'} matched`
        : `${failed} of ${result.checks.length} condition${result.checks.length === 1 ? '' : 's'} did not match`,
  };
  const automationCheck = input.automationEnabled
    ? { passed: true, reason: 'the automation is enabled' }
    : { passed: false, reason: 'the automation is disabled, so it starts no runs' };

  return { wouldTrigger: webhookCheck.passed && payloadCheck.passed && automationCheck.passed, webhookCheck, payloadCheck, automationCheck };
}

/** The API's test-filter: a saved trigger, by index. */
export async function testSavedTrigger(
  factoryId: string,
  automationId: string,
  input: { trigger: number; deliveryId: string },
  db: DbOrTx = prisma,
): Promise<TestFilterResult> {
  const automation = await getAutomation(factoryId, automationId, db);
  const trigger = automation.triggers[input.trigger];
  if (!trigger) {
    const count = automation.triggers.length;
    throw new AppError('validation_failed', 'No such trigger', {
      trigger: count === 0 ? 'This automation has no triggers' : `Use a trigger index from 0 to ${count - 1}`,
    });
  }
  return testTrigger(factoryId, { trigger: trigger.trigger, deliveryId: input.deliveryId, automationEnabled: automation.enabled }, db);
}

export const BACKTEST_MAX = 100;

export type BacktestResult = {
  webhook: { uid: string; name: string; state: 'live' | 'disabled' | 'deleted' };
  tested: number;
  wouldTrigger: number;
  deliveries: { id: string; deliveryId: string; receivedAt: Date; wouldTrigger: boolean; failures: string[] }[];
};

/**
 * Backtest: a trigger's filter as written (unsaved edits included) over the
 * most recent Accepted deliveries of its webhook, newest first.
 */
export async function backtestTrigger(factoryId: string, input: { trigger: TriggerInput; limit?: number }, db: DbOrTx = prisma): Promise<BacktestResult> {
  const trigger = triggerSchema.parse(input.trigger);
  const uid = trigger.filter.webhook_ids[0]!;
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid }, select: { id: true, name: true, enabled: true, deletedAt: true } });
  if (!webhook) throw new AppError('validation_failed', 'No such webhook', { 'trigger.filter.webhook_ids': `No webhook with UID ${uid} in this factory` });
  const deliveries = await db.delivery.findMany({
    where: { webhookId: webhook.id, status: 'accepted', body: { not: null } },
    select: { id: true, deliveryId: true, receivedAt: true, body: true },
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(input.limit ?? BACKTEST_MAX, 1), BACKTEST_MAX),
  });
  const results = deliveries.map((delivery) => {
    const result = evaluateFilter(trigger.filter.payload ?? null, JSON.parse(delivery.body!) as unknown);
    return {
      id: delivery.id,
      deliveryId: delivery.deliveryId,
      receivedAt: delivery.receivedAt,
      wouldTrigger: result.matched,
      failures: result.checks.filter((c) => !c.passed).map(describeCheck),
    };
  });
  return {
    webhook: { uid, name: webhook.name, state: webhookState(webhook) },
    tested: results.length,
    wouldTrigger: results.filter((r) => r.wouldTrigger).length,
    deliveries: results,
  };
}
