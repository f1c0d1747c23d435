import 'server-only';
import { prisma, type DbOrTx, type Tx } from '@/lib/platform/db';
import { lockFactory } from '@/lib/platform/db/locks';
import { AppError, notFound, type FieldErrors } from '@/lib/platform/http/errors';
import { decodeNameCursor, encodeNameCursor } from '@/lib/platform/name-cursor';
import {
  MAX_AUTOMATIONS_PER_FACTORY,
  createAutomationSchema,
  listAutomationsSchema,
  triggerFromColumns,
  updateAutomationSchema,
  type CreateAutomationInput,
  type ListAutomationsInput,
  type TriggerInput,
  type UpdateAutomationInput,
} from '@/lib/domain/automations/schemas';
import { forgetWebhook } from '@/lib/ingress/live-cache';
import { Prisma } from '@/lib/generated/prisma/client';
import { runControlSchema, type RunControl } from '@/lib/domain/run-control/config';

// The automation rules, written once for the dashboard and the API.
//
// Triggers name webhooks by UID. A UID must name a webhook of the same
// factory; a webhook deleted after the trigger was saved leaves the trigger
// in place, marked, and it never fires (the ingress only sees live
// webhooks). A trigger cannot be newly pointed at a deleted webhook.
//
// The ingress reads an automation's triggers together with the live webhook
// (one cached lookup); database triggers announce every change to an
// automation or a trigger on the webhook's change channel, so all instances
// drop the cached entry (migration automation_change_notifications).

export type TriggerWebhook = { uid: string; name: string | null; state: 'live' | 'disabled' | 'deleted' | 'missing' };

export type TriggerView = {
  index: number;
  trigger: TriggerInput;
  webhook: TriggerWebhook;
};

export type AutomationSummary = {
  id: string;
  name: string;
  enabled: boolean;
  triggers: TriggerView[];
  createdAt: Date;
  updatedAt: Date;
  runCount: number;
  lastRunAt: Date | null;
  /** null: every matching delivery starts a run at once. */
  runControl: RunControl | null;
};

export type AutomationView = AutomationSummary & { prompt: string };

type AutomationRow = {
  id: string;
  name: string;
  prompt: string;
  enabled: boolean;
  runControl: unknown;
  createdAt: Date;
  updatedAt: Date;
  triggers: { position: number; webhookUid: string; events: unknown; headerFilter: unknown; payloadFilter: unknown }[];
};

const automationSelect = {
  id: true,
  name: true,
  prompt: true,
  enabled: true,
  runControl: true,
  createdAt: true,
  updatedAt: true,
  triggers: { select: { position: true, webhookUid: true, events: true, headerFilter: true, payloadFilter: true }, orderBy: { position: 'asc' } },
} as const;

async function webhooksByUid(factoryId: string, uids: string[], db: DbOrTx) {
  if (uids.length === 0) return new Map<string, { name: string; enabled: boolean; deletedAt: Date | null }>();
  const rows = await db.webhook.findMany({
    where: { factoryId, uid: { in: [...new Set(uids)] } },
    select: { uid: true, name: true, enabled: true, deletedAt: true },
  });
  return new Map(rows.map((row) => [row.uid, row]));
}

/** Whether a webhook a trigger names can still receive deliveries. */
export function webhookState(webhook: { enabled: boolean; deletedAt: Date | null }): Exclude<TriggerWebhook['state'], 'missing'> {
  return webhook.deletedAt ? 'deleted' : webhook.enabled ? 'live' : 'disabled';
}

function triggerWebhook(uid: string, webhook: { name: string; enabled: boolean; deletedAt: Date | null } | undefined): TriggerWebhook {
  if (!webhook) return { uid, name: null, state: 'missing' };
  return { uid, name: webhook.name, state: webhookState(webhook) };
}

async function toViews(factoryId: string, rows: AutomationRow[], db: DbOrTx): Promise<AutomationView[]> {
  const webhooks = await webhooksByUid(
    factoryId,
    rows.flatMap((row) => row.triggers.map((t) => t.webhookUid)),
    db,
  );
  const stats = rows.length
    ? await db.run.groupBy({
        by: ['automationId'],
        where: { automationId: { in: rows.map((row) => row.id) } },
        _count: { _all: true },
        _max: { createdAt: true },
      })
    : [];
  const statsById = new Map(stats.map((s) => [s.automationId, s]));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    prompt: row.prompt,
    enabled: row.enabled,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    triggers: row.triggers.map((t, index) => ({
      index,
      trigger: triggerFromColumns(t),
      webhook: triggerWebhook(t.webhookUid, webhooks.get(t.webhookUid)),
    })),
    runCount: statsById.get(row.id)?._count._all ?? 0,
    lastRunAt: statsById.get(row.id)?._max.createdAt ?? null,
    runControl: storedRunControl(row.runControl),
  }));
}

/**
 * The stored settings, read through the schema so every reader sees its
 * defaults filled in. A value the schema no longer accepts (saved before a
 * check was added) is shown as stored, so the editor still shows it and says
 * what is wrong with it on the next save, rather than silently reading as none.
 */
function storedRunControl(value: unknown): RunControl | null {
  if (value === null || value === undefined) return null;
  const parsed = runControlSchema.safeParse(value);
  return parsed.success ? parsed.data : (value as RunControl);
}

/** The column's value: the settings as validated (defaults filled in), or SQL NULL. */
const runControlColumn = (value: RunControl | null) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

export type AutomationPage = { automations: AutomationView[]; nextCursor: string | null; total: number };

/**
 * One page of a factory's automations, by name (then id, so that equal names
 * page deterministically), with an opaque keyset cursor and the factory's
 * total. Pages are bounded, so one request never loads every automation's
 * triggers and run counts at once.
 */
export async function listAutomations(factoryId: string, input: ListAutomationsInput = {}, db: DbOrTx = prisma): Promise<AutomationPage> {
  const { limit, cursor } = listAutomationsSchema.parse(input);
  const after = cursor ? decodeNameCursor(cursor) : null;
  const where = after ? { factoryId, OR: [{ name: { gt: after.name } }, { name: after.name, id: { gt: after.id } }] } : { factoryId };
  const [rows, total] = await Promise.all([
    db.automation.findMany({ where, select: automationSelect, orderBy: [{ name: 'asc' }, { id: 'asc' }], take: limit + 1 }),
    db.automation.count({ where: { factoryId } }),
  ]);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return { automations: await toViews(factoryId, page, db), nextCursor: more && last ? encodeNameCursor(last) : null, total };
}

export async function getAutomation(factoryId: string, id: string, db: DbOrTx = prisma): Promise<AutomationView> {
  const row = await db.automation.findFirst({ where: { id, factoryId }, select: automationSelect });
  if (!row) throw notFound('No automation with this id in this factory');
  const [view] = await toViews(factoryId, [row], db);
  return view!;
}

/** Automations with a trigger on this webhook (for the webhook's page). */
export async function listAutomationsForWebhook(factoryId: string, webhookUid: string, db: DbOrTx = prisma): Promise<AutomationView[]> {
  const rows = await db.automation.findMany({
    where: { factoryId, triggers: { some: { webhookUid } } },
    select: automationSelect,
    orderBy: { name: 'asc' },
  });
  return toViews(factoryId, rows, db);
}

/**
 * Refuses triggers whose UID names no webhook of this factory, and new
 * triggers on deleted webhooks (a trigger kept from before the deletion may
 * stay). Errors are keyed like zod's paths so forms show them on the field.
 */
async function checkTriggerWebhooks(tx: Tx, factoryId: string, triggers: TriggerInput[], keptUids: Set<string>): Promise<void> {
  const webhooks = await webhooksByUid(
    factoryId,
    triggers.map((t) => t.filter.webhook_ids[0]!),
    tx,
  );
  const fields: FieldErrors = {};
  triggers.forEach((trigger, index) => {
    const uid = trigger.filter.webhook_ids[0]!;
    const webhook = webhooks.get(uid);
    const key = `triggers.${index}.filter.webhook_ids`;
    if (!webhook) fields[key] = `No webhook with UID ${uid} in this factory`;
    else if (webhook.deletedAt && !keptUids.has(uid)) fields[key] = `The webhook "${webhook.name}" was deleted; pick a live webhook`;
  });
  if (Object.keys(fields).length > 0) throw new AppError('validation_failed', 'Some triggers are invalid', fields);
}

async function writeTriggers(tx: Tx, automationId: string, triggers: TriggerInput[]): Promise<void> {
  await tx.webhookTrigger.deleteMany({ where: { automationId } });
  if (triggers.length === 0) return;
  await tx.webhookTrigger.createMany({
    data: triggers.map((trigger, position) => ({
      automationId,
      position,
      webhookUid: trigger.filter.webhook_ids[0]!,
      // Left out (not JSON null) when a part is not set: the column stays SQL NULL.
      events: trigger.filter.events ?? undefined,
      headerFilter: trigger.filter.headers ?? undefined,
      payloadFilter: trigger.filter.payload ?? undefined,
    })),
  });
}

function forgetAll(uids: Iterable<string>): void {
  for (const uid of new Set(uids)) forgetWebhook(uid);
}

export async function createAutomation(factoryId: string, input: CreateAutomationInput, db = prisma): Promise<AutomationView> {
  const data = createAutomationSchema.parse(input);
  const id = await db.$transaction(async (tx) => {
    await lockFactory(tx, factoryId);
    if ((await tx.automation.count({ where: { factoryId } })) >= MAX_AUTOMATIONS_PER_FACTORY) {
      throw new AppError(
        'validation_failed',
        `A factory can have at most ${MAX_AUTOMATIONS_PER_FACTORY} automations. Delete one you no longer use, or add a trigger to an existing one, to create another.`,
      );
    }
    await checkTriggerWebhooks(tx, factoryId, data.triggers, new Set());
    const created = await tx.automation.create({
      data: { factoryId, name: data.name, prompt: data.prompt, enabled: data.enabled, runControl: runControlColumn(data.runControl ?? null) },
      select: { id: true },
    });
    await writeTriggers(tx, created.id, data.triggers);
    return created.id;
  });
  forgetAll(data.triggers.map((t) => t.filter.webhook_ids[0]!));
  return getAutomation(factoryId, id, db);
}

export async function updateAutomation(factoryId: string, id: string, input: UpdateAutomationInput, db = prisma): Promise<AutomationView> {
  const data = updateAutomationSchema.parse(input);
  const touched = await db.$transaction(async (tx) => {
    await lockFactory(tx, factoryId);
    const existing = await tx.automation.findFirst({ where: { id, factoryId }, select: { id: true, triggers: { select: { webhookUid: true } } } });
    if (!existing) throw notFound('No automation with this id in this factory');
    const before = existing.triggers.map((t) => t.webhookUid);
    await tx.automation.update({
      where: { id },
      data: {
        name: data.name,
        prompt: data.prompt,
        enabled: data.enabled,
        runControl: data.runControl === undefined ? undefined : runControlColumn(data.runControl),
        updatedAt: new Date(),
      },
    });
    if (data.triggers) {
      await checkTriggerWebhooks(tx, factoryId, data.triggers, new Set(before));
      await writeTriggers(tx, id, data.triggers);
      return [...before, ...data.triggers.map((t) => t.filter.webhook_ids[0]!)];
    }
    return before;
  });
  forgetAll(touched);
  return getAutomation(factoryId, id, db);
}

/** Deletes the automation and its triggers; its runs go with it. */
export async function deleteAutomation(factoryId: string, id: string, db = prisma): Promise<void> {
  const uids = await db.$transaction(async (tx) => {
    const existing = await tx.automation.findFirst({ where: { id, factoryId }, select: { triggers: { select: { webhookUid: true } } } });
    if (!existing) throw notFound('No automation with this id in this factory');
    await tx.automation.delete({ where: { id } });
    return existing.triggers.map((t) => t.webhookUid);
  });
  forgetAll(uids);
}
