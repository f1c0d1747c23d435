import 'server-only';
import { prisma, type Db, type DbOrTx, type Tx } from '@/lib/platform/db';
import { evaluateTrigger, matchesTrigger, type DeliveryFacts, type FilterCheck, type TriggerFilter } from '@/lib/ingress/filters';
import { COPIED_THROUGH_SQL, NO_COPY_YET } from '@/lib/domain/deliveries/body-json';
import { readsDeliveryMetadata, triggerToSql } from '@/lib/ingress/filters/trigger';
import { AppError } from '@/lib/platform/http/errors';
import { getAutomation, webhookState } from '@/lib/domain/automations/service';
import { pastedBodySchema, triggerSchema, type TriggerInput } from '@/lib/domain/automations/schemas';
import { previewRunControl, type RunControlPreview } from '@/lib/domain/run-control/preview';

// Test filter (docs/automations.md, Test filter, Backtest, Why not, Replay): would this stored delivery have started this
// trigger's automation? The answer applies the ingress's own rules, each
// with its reason: the delivery must come from the trigger's webhook, that
// webhook must be live, its event type, headers and payload must match the
// trigger's filter (lib/ingress/filters/trigger.ts), and the automation must be
// enabled. Only Accepted log entries keep a payload, so only they can be
// tested.

export type TestFilterResult = {
  wouldTrigger: boolean;
  webhookCheck: {
    passed: boolean;
    expected: { uid: string; name: string | null };
    actual: { uid: string; name: string };
    reason: string;
  };
  /** The delivery's type against the trigger's `events`; passes when the trigger lists none. */
  eventCheck: { passed: boolean; expected: string; actual: string; reason: string };
  headerCheck: { passed: boolean; checks: FilterCheck[]; reason: string };
  payloadCheck: { passed: boolean; checks: FilterCheck[]; reason: string };
  automationCheck: { passed: boolean; reason: string };
  /** A saved automation with run control, when the delivery would trigger it: what would happen now (read-only). */
  runControl?: RunControlPreview;
};

async function loadDelivery(factoryId: string, id: string, db: DbOrTx) {
  const delivery = await db.delivery.findFirst({
    where: { id, webhook: { factoryId } },
    select: { id: true, status: true, body: true, eventType: true, headers: true, deliveryId: true, webhook: { select: { uid: true, name: true } } },
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
  /** `automationId`: a saved automation's, whose run control (if any) says what would happen now. */
  input: { trigger: TriggerInput; deliveryId: string; automationEnabled: boolean; automationId?: string },
  db: DbOrTx = prisma,
): Promise<TestFilterResult> {
  const trigger = triggerSchema.parse(input.trigger);
  // previewRunControl reads the automation by id alone: an automation of another factory must get an error, never its group's state.
  if (input.automationId !== undefined) await automationOfFactory(factoryId, input.automationId, db);
  const delivery = await loadDelivery(factoryId, input.deliveryId, db);
  const uid = trigger.filter.webhook_ids[0]!;
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid }, select: { name: true, enabled: true, deletedAt: true } });

  const webhookCheck = checkWebhook(uid, webhook, delivery.webhook, (name) => `the delivery came to "${name}"`);
  // The body was valid JSON when it was accepted; parsing cannot fail.
  const facts = { eventType: delivery.eventType, headers: delivery.headers, body: JSON.parse(delivery.body) as unknown };
  const tested = result(webhookCheck, trigger, facts, input.automationEnabled);
  const preview = tested.wouldTrigger && input.automationId ? await previewRunControl(input.automationId, facts, db) : null;
  return preview ? { ...tested, runControl: preview } : tested;
}

/** Throws not_found unless the automation belongs to the factory (the same answer for one that does not exist). */
async function automationOfFactory(factoryId: string, automationId: string, db: DbOrTx): Promise<void> {
  const found = await db.automation.findFirst({ where: { id: automationId, factoryId }, select: { id: true } });
  if (!found) throw new AppError('not_found', 'No automation with this id in this factory', { automationId: 'No automation with this id in this factory' });
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

const conditions = (count: number) => `${count} condition${count === 1 ? '' : 's'}`;

function partReason(label: string, present: boolean, result: { matched: boolean; checks: FilterCheck[] }): string {
  if (!present) return `no ${label}: every delivery of the webhook matches`;
  const failed = result.checks.filter((check) => !check.passed).length;
  return result.matched ? `all ${conditions(result.checks.length)} matched` : `${failed} of ${conditions(result.checks.length)} did not match`;
}

/** The event type, header, payload and automation checks, and the verdict, once the webhook check is known. */
function result(webhookCheck: TestFilterResult['webhookCheck'], trigger: TriggerInput, facts: DeliveryFacts, automationEnabled: boolean): TestFilterResult {
  const evaluated = evaluateTrigger(trigger.filter, facts);
  const eventCheck = evaluated.events ?? { passed: true, expected: 'any type', actual: facts.eventType ?? 'none', reason: 'no event types listed: every type matches, and deliveries without one' };
  const headers = evaluated.headers ?? { matched: true, checks: [] };
  const headerCheck = { passed: headers.matched, checks: headers.checks, reason: partReason('header filter', Boolean(trigger.filter.headers), headers) };
  const payloadCheck = { passed: evaluated.payload.matched, checks: evaluated.payload.checks, reason: partReason('payload filter', Boolean(trigger.filter.payload), evaluated.payload) };
  const automationCheck = automationEnabled
    ? { passed: true, reason: 'the automation is enabled' }
    : { passed: false, reason: 'the automation is disabled, so it starts no runs' };
  return { wouldTrigger: webhookCheck.passed && evaluated.matched && automationCheck.passed, webhookCheck, eventCheck, headerCheck, payloadCheck, automationCheck };
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
  // A pasted body comes without the request's headers, so without a type or headers to test.
  const tested = result(webhookCheck, trigger, { eventType: null, headers: {}, body: JSON.parse(body) as unknown }, input.automationEnabled);
  if (!tested.eventCheck.passed) {
    tested.eventCheck = { ...tested.eventCheck, reason: 'a pasted body has no event type (it comes from the request); test an Accepted delivery from the log to check the event types' };
  }
  return tested;
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
  return testTrigger(factoryId, { trigger: trigger.trigger, deliveryId: input.deliveryId, automationEnabled: automation.enabled, automationId: automation.id }, db);
}

/** Most recent matches, and most recent non-matches, a Backtest lists by default; `limit` goes up to BACKTEST_MAX. */
export const BACKTEST_EXAMPLES = 25;
export const BACKTEST_MAX = 100;

export type BacktestResult = {
  webhook: { uid: string; name: string; state: 'live' | 'disabled' | 'deleted' };
  /** Every Accepted delivery of the webhook in the retained log, less `untested`. */
  tested: number;
  /** Deliveries without a jsonb copy past the TypeScript evaluator's bound, not tested: the count is partial when this is above 0. */
  untested: number;
  wouldTrigger: number;
  /** The most recent deliveries that would trigger and that would not (up to `limit` of each), newest first, explained. */
  deliveries: { id: string; deliveryId: string; receivedAt: Date; wouldTrigger: boolean; failures: string[] }[];
};

type Candidate = { id: string; receivedAt: Date; matched: boolean };

const newestFirst = (a: Candidate, b: Candidate) => b.receivedAt.getTime() - a.receivedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

// The webhook's jsonb copies (DeliveryJson), each read once per row: the
// predicate refers to it many times, and each reference to a stored
// (compressed) jsonb value would decompress it again.
const COPIES = `FROM "DeliveryJson" c CROSS JOIN LATERAL (SELECT c."json" #> '{}' AS b OFFSET 0) j`;
// The webhook's Accepted deliveries without a copy: not copied yet (newer
// than the copy job's cursor), or that jsonb cannot hold.
const UNCOPIED = `(SELECT d."id", d."receivedAt", d."body", d."eventType", d."headers" FROM "Delivery" d
                    WHERE d."webhookId" = $1 AND d."status" = 'accepted' AND d."body" IS NOT NULL AND d."receivedAt" > ${COPIED_THROUGH_SQL}
                      AND ${NO_COPY_YET}
                  UNION ALL
                  SELECT d."id", d."receivedAt", d."body", d."eventType", d."headers" FROM "DeliveryJson" c JOIN "Delivery" d ON d."id" = c."deliveryId"
                    WHERE c."webhookId" = $1 AND c."json" IS NULL AND d."status" = 'accepted' AND d."body" IS NOT NULL)`;
/**
 * Bodies a page of the TypeScript path reads: 100 of the ingress's largest (256 KiB) are 25 MiB,
 * parsed on the event loop between two reads; the byte bound below is checked after each body.
 */
const TS_PAGE = 100;
/**
 * The most bodies without a copy one Backtest evaluates in TypeScript, and
 * the most bytes of them: after an upgrade, a restore or a burst the copies
 * can lag far behind, and the evaluator would otherwise read them all. Past
 * either, the answer counts what it evaluated and says how many it did not.
 */
export const BACKTEST_UNCOPIED_MAX = 20_000;
export const BACKTEST_UNCOPIED_MAX_BYTES = 64 * 1024 * 1024;
/** No statement of a Backtest runs longer (PostgreSQL's statement_timeout). */
const STATEMENT_TIMEOUT = '30s';

/** Above this many copies, PostgreSQL counts the two halves of the log at once, on two connections. */
const SPLIT_FROM = 20_000;

/** Raw queries with JIT off: a filter's large predicate gets a cost estimate that would switch JIT compilation on, which takes longer than the query. */
function withoutJit<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL jit = off');
      await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT}'`);
      return work(tx);
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
}

// The row comparisons that split the webhook's copies into two halves at the
// median (newest first), found on the index; one range (no condition) for a small log.
async function halves(db: Db, webhookId: string, splitFrom: number): Promise<{ sql: (at: number) => string; params: unknown[] }[]> {
  const whole = [{ sql: () => '', params: [] }];
  const [{ count } = { count: 0 }] = await db.$queryRawUnsafe<{ count: number }[]>(
    `SELECT count(*)::int AS "count" FROM "DeliveryJson" c WHERE c."webhookId" = $1`,
    webhookId,
  );
  if (count < splitFrom) return whole;
  const [middle] = await db.$queryRawUnsafe<{ receivedAt: Date; id: string }[]>(
    `SELECT c."receivedAt", c."deliveryId" AS "id" FROM "DeliveryJson" c WHERE c."webhookId" = $1
      ORDER BY c."receivedAt" DESC, c."deliveryId" DESC OFFSET $2 LIMIT 1`,
    webhookId,
    Math.floor(count / 2),
  );
  if (!middle) return whole;
  const params = [middle.receivedAt.toISOString(), middle.id];
  return [
    { sql: (at) => `AND (c."receivedAt", c."deliveryId") >= ($${at}::timestamp(3), $${at + 1})`, params },
    { sql: (at) => `AND (c."receivedAt", c."deliveryId") < ($${at}::timestamp(3), $${at + 1})`, params },
  ];
}

/**
 * How many of the webhook's Accepted deliveries match, and the most recent
 * matches and non-matches (up to `limit` of each, not yet ordered).
 */
async function countMatches(db: Db, webhookId: string, filter: TriggerFilter, limit: number, splitFrom: number, uncopiedMax: number, others = true) {
  // 1. Bodies without a copy, in TypeScript. Their ids are left out of the
  // SQL below, so a body the copy job reaches meanwhile is counted once.
  const uncopied: string[] = [];
  const examples: Candidate[] = [];
  let matched = 0;
  let kept = { matches: 0, others: 0 };
  let bytes = 0;
  let untested = 0;
  for (let cursor: { receivedAt: Date; id: string } | null = null; ; ) {
    if (uncopied.length >= uncopiedMax || bytes >= BACKTEST_UNCOPIED_MAX_BYTES) {
      // The bound is reached: the rest (older) is counted, not evaluated.
      const [rest] = await withoutJit(db, (tx) =>
        tx.$queryRawUnsafe<{ count: number }[]>(
          `SELECT count(*)::int AS "count" FROM ${UNCOPIED} u ${cursor ? `WHERE (u."receivedAt", u."id") < ($2::timestamp(3), $3)` : ''}`,
          webhookId,
          ...(cursor ? [cursor.receivedAt.toISOString(), cursor.id] : []),
        ),
      );
      untested = rest?.count ?? 0;
      break;
    }
    const after = cursor;
    const page: { id: string; receivedAt: Date; body: string; eventType: string | null; headers: unknown }[] = await withoutJit(db, (tx) =>
      tx.$queryRawUnsafe(
        `SELECT u."id", u."receivedAt", u."body", u."eventType", u."headers" FROM ${UNCOPIED} u
          ${after ? `WHERE (u."receivedAt", u."id") < ($2::timestamp(3), $3)` : ''}
          ORDER BY u."receivedAt" DESC, u."id" DESC LIMIT ${TS_PAGE}`,
        webhookId,
        ...(after ? [after.receivedAt.toISOString(), after.id] : []),
      ),
    );
    // Stopped inside the page once a bound is reached: the rest of the page is counted with the rest.
    let stopped = false;
    for (const row of page) {
      // The body was valid JSON when it was accepted; parsing cannot fail.
      const isMatch = matchesTrigger(filter, { eventType: row.eventType, headers: row.headers, body: JSON.parse(row.body) as unknown });
      uncopied.push(row.id);
      bytes += row.body.length;
      if (isMatch) matched++;
      if (isMatch ? kept.matches < limit : others && kept.others < limit) {
        examples.push({ id: row.id, receivedAt: row.receivedAt, matched: isMatch });
        kept = isMatch ? { ...kept, matches: kept.matches + 1 } : { ...kept, others: kept.others + 1 };
      }
      cursor = { receivedAt: row.receivedAt, id: row.id };
      if (uncopied.length >= uncopiedMax || bytes >= BACKTEST_UNCOPIED_MAX_BYTES) {
        stopped = true;
        break;
      }
    }
    if (!stopped && page.length < TS_PAGE) break;
  }

  // 2. Every copy, in SQL.
  const params: unknown[] = [webhookId];
  const excluded = uncopied.length > 0 ? (params.push(JSON.stringify(uncopied)), `AND c."deliveryId" NOT IN (SELECT jsonb_array_elements_text($2::jsonb))`) : '';
  const predicate = triggerToSql(filter, { eventType: 'd."eventType"', headers: 'd."headers"', body: 'j.b' }, params);
  // Without a condition nothing needs reading but the index: the copies
  // without json are all among the bodies counted above. The log's rows are
  // read only for a filter on the type or the headers.
  const readsBody = filter.payload !== null && filter.payload !== undefined && Object.keys(filter.payload).length > 0;
  const from = `${readsBody ? COPIES : 'FROM "DeliveryJson" c'}${readsDeliveryMetadata(filter) ? ' JOIN "Delivery" d ON d."id" = c."deliveryId"' : ''}`;
  const where = `WHERE c."webhookId" = $1 ${predicate === 'true' ? '' : 'AND c."json" IS NOT NULL'} ${excluded}`;
  const parts = await Promise.all(
    (await halves(db, webhookId, splitFrom)).map((range) =>
      withoutJit(db, (tx) =>
        tx.$queryRawUnsafe<{ copied: number; matched: number }[]>(
          `SELECT count(*)::int AS "copied", count(*) FILTER (WHERE ${predicate})::int AS "matched" ${from} ${where} ${range.sql(params.length + 1)}`,
          ...params,
          ...range.params,
        ),
      ),
    ),
  );
  const copied = parts.reduce((sum, [row]) => sum + (row?.copied ?? 0), 0);
  const copiedMatches = parts.reduce((sum, [row]) => sum + (row?.matched ?? 0), 0);
  const recent = (wanted: boolean) =>
    withoutJit(db, (tx) =>
      tx.$queryRawUnsafe<{ id: string; receivedAt: Date }[]>(
        `SELECT c."deliveryId" AS "id", c."receivedAt" ${from} ${where} AND ${wanted ? '' : 'NOT'} (${predicate})
          ORDER BY c."receivedAt" DESC, c."deliveryId" DESC LIMIT ${limit}`,
        ...params,
      ),
    );
  const [recentMatches, recentOthers] = await Promise.all([copiedMatches > 0 ? recent(true) : [], others && copiedMatches < copied ? recent(false) : []]);
  examples.push(...recentMatches.map((row) => ({ ...row, matched: true })), ...recentOthers.map((row) => ({ ...row, matched: false })));

  return { uncopied: uncopied.length, untested, copied, matched: matched + copiedMatches, examples };
}

/**
 * Backtest: a trigger's filter as written (unsaved edits included) over every
 * Accepted delivery of its webhook in the retained log. The filter runs as SQL
 * over the bodies' jsonb copies (lib/ingress/filters/sql.ts), with the log's stored
 * type and headers when it tests them (lib/ingress/filters/trigger.ts); bodies without a copy
 * (not copied yet, or that jsonb cannot hold) run through the TypeScript
 * evaluator. The listed examples are explained by the evaluator, as Test
 * filter explains. Changes nothing.
 */
export async function backtestTrigger(
  factoryId: string,
  input: { trigger: TriggerInput; limit?: number },
  db: Db = prisma,
  splitFrom = SPLIT_FROM,
  uncopiedMax = BACKTEST_UNCOPIED_MAX,
): Promise<BacktestResult> {
  const trigger = triggerSchema.parse(input.trigger);
  const uid = trigger.filter.webhook_ids[0]!;
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid }, select: { id: true, name: true, enabled: true, deletedAt: true } });
  if (!webhook) throw new AppError('validation_failed', 'No such webhook', { 'trigger.filter.webhook_ids': `No webhook with UID ${uid} in this factory` });
  const filter = trigger.filter;
  const limit = Math.min(Math.max(input.limit ?? BACKTEST_EXAMPLES, 1), BACKTEST_MAX);

  const { uncopied, untested, copied, matched, examples } = await countMatches(db, webhook.id, filter, limit, splitFrom, uncopiedMax);

  // Explain the most recent of each kind.
  examples.sort(newestFirst);
  const shown = [...examples.filter((e) => e.matched).slice(0, limit), ...examples.filter((e) => !e.matched).slice(0, limit)].sort(newestFirst);
  const rows = await db.delivery.findMany({
    where: { id: { in: shown.map((e) => e.id) } },
    select: { id: true, deliveryId: true, receivedAt: true, body: true, eventType: true, headers: true },
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const deliveries = shown.flatMap((example) => {
    const row = byId.get(example.id);
    // Pruned by retention in the meantime.
    if (!row || row.body === null) return [];
    const result = evaluateTrigger(filter, { eventType: row.eventType, headers: row.headers, body: JSON.parse(row.body) as unknown });
    return [
      {
        id: row.id,
        deliveryId: row.deliveryId,
        receivedAt: row.receivedAt,
        wouldTrigger: result.matched,
        failures: result.failures,
      },
    ];
  });
  return {
    webhook: { uid, name: webhook.name, state: webhookState(webhook) },
    tested: uncopied + copied,
    untested,
    wouldTrigger: matched,
    deliveries,
  };
}

/**
 * The deliveries a trigger's filter matches, as Backtest counts them (the
 * same SQL and TypeScript paths): the webhook's row id, how many match, how
 * many could not be evaluated (`untested`), and the ids of the newest `max`
 * matches, newest first. What a bulk replay selects by automation.
 */
export async function backtestMatches(
  factoryId: string,
  trigger: TriggerInput,
  max: number,
  db: Db = prisma,
): Promise<{ webhookId: string; matched: number; untested: number; ids: string[] }> {
  const parsed = triggerSchema.parse(trigger);
  const uid = parsed.filter.webhook_ids[0]!;
  const webhook = await db.webhook.findFirst({ where: { factoryId, uid, deletedAt: null }, select: { id: true } });
  if (!webhook) throw new AppError('validation_failed', 'No such webhook', { 'trigger.filter.webhook_ids': `No webhook with UID ${uid} in this factory` });
  const { untested, matched, examples } = await countMatches(db, webhook.id, parsed.filter, max, SPLIT_FROM, BACKTEST_UNCOPIED_MAX, false);
  const ids = examples
    .filter((e) => e.matched)
    .sort(newestFirst)
    .slice(0, max)
    .map((e) => e.id);
  return { webhookId: webhook.id, matched, untested, ids };
}
