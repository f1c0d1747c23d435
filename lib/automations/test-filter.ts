import 'server-only';
import { prisma, type DbOrTx } from '@/lib/db';
import { describeCheck, evaluateFilter, type FilterCheck } from '@/lib/filters';
import { AppError } from '@/lib/http/errors';
import { getAutomation, webhookState } from '@/lib/automations/service';
import { pastedBodySchema, triggerSchema, type TriggerInput } from '@/lib/automations/schemas';

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

  const webhookCheck = checkWebhook(uid, webhook, delivery.webhook, (name) => `the delivery came to "${name}"`);
  // The body was valid JSON when it was accepted; parsing cannot fail.
  return result(webhookCheck, trigger, JSON.parse(delivery.body) as unknown, input.automationEnabled);
}

/** The webhook check: the trigger's webhook must exist, be live, and be the one the body came to. */
function checkWebhook(
  uid: string,
  webhook: { name: string; enabled: boolean; deletedAt: Date | null } | null,
  actual: { uid: string; name: string },
  passed: (name: string) => string,
): TestFilterResult['webhookCheck'] {
  const expected = { uid, name: webhook?.name ?? null };
  const fail = (reason: string) => ({ passed: false, expected, actual, reason });
  if (!webhook) return fail(`no webhook with UID ${uid} exists in this factory`);
  if (webhook.deletedAt) return fail(`the webhook "${webhook.name}" was deleted, so this trigger never fires`);
  if (actual.uid !== uid) return fail(`the delivery came to "${actual.name}", and the trigger selects "${webhook.name}"`);
  if (!webhook.enabled) return fail(`the webhook "${webhook.name}" is disabled, so it accepts no deliveries`);
  return { passed: true, expected, actual, reason: passed(webhook.name) };
}

/** The payload and automation checks, and the verdict, once the webhook check is known. */
function result(webhookCheck: TestFilterResult['webhookCheck'], trigger: TriggerInput, body: unknown, automationEnabled: boolean): TestFilterResult {
  const evaluated = evaluateFilter(trigger.filter.payload ?? null, body);
  const failed = evaluated.checks.filter((check) => !check.passed).length;
  const count = evaluated.checks.length;
  const payloadCheck = {
    passed: evaluated.matched,
    checks: evaluated.checks,
    reason: !trigger.filter.payload
      ? 'no payload filter: every delivery of the webhook matches'
      : evaluated.matched
        ? `all ${count} condition${count === 1 ? '' : 's'} matched`
        : `${failed} of ${count} condition${count === 1 ? '' : 's'} did not match`,
  };
  const automationCheck = automationEnabled
    ? { passed: true, reason: 'the automation is enabled' }
    : { passed: false, reason: 'the automation is disabled, so it starts no runs' };
  return { wouldTrigger: webhookCheck.passed && payloadCheck.passed && automationCheck.passed, webhookCheck, payloadCheck, automationCheck };
}

/**
 * Tests a trigger as written against a pasted body (docs/automations.md, Test
 * filter): a payload that has not arrived yet, e.g. copied from a provider's
 * documentation. It is taken as a delivery to the trigger's webhook.
 */
export async function testTriggerOnBody(
  factoryId: string,
  input: { trigger: TriggerInput; body: string; automationEnabled: boolean },
  db: DbOrTx = prisma,
): Promise<TestFilterResult> {
  const trigger = triggerSchema.parse(input.trigger);
  const body = pastedBodySchema.parse(input.body);
  const uid = trigger.filter.webhook_ids[0]!;
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid }, select: { name: true, enabled: true, deletedAt: true } });
  const webhookCheck = checkWebhook(uid, webhook, { uid, name: webhook?.name ?? uid }, (name) => `the pasted body is tested as a delivery to "${name}"`);
  return result(webhookCheck, trigger, JSON.parse(body) as unknown, input.automationEnabled);
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
