import 'server-only';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { prisma, type DbOrTx, type Tx } from '@/lib/platform/db';
import { lockFactory } from '@/lib/platform/db/locks';
import { forgetWebhook } from '@/lib/ingress/live-cache';
import { decryptSecret } from '@/lib/platform/crypto/encryption';
import { randomBase62 } from '@/lib/platform/crypto/random';
import type { ConnectionDefinition, WebhookDefinition } from '@/lib/domain/definitions/schemas';
import { definitionFile, removeDefinitionFileTx, writeDefinitionFileTx } from '@/lib/domain/webhooks/definition-file';
import { AppError } from '@/lib/platform/http/errors';
import { createSecretTx, putSecretTx, readSecretValue } from '@/lib/domain/secrets/service';
import { pushSecretToProvider } from '@/lib/domain/connections/service';
import { getScheme, type SchemeId } from '@/lib/ingress/signatures/registry';
import {
  MAX_WEBHOOKS_PER_FACTORY,
  createWebhookSchema,
  eventTypeChangeSchema,
  eventTypeSettingSchema,
  ipAllowlistSchema,
  customResponseChangeSchema,
  providerSecretSchema,
  suggestFreeSecretName,
  suggestSecretName,
  type AuthMode,
  type CreateWebhookInput,
  type CustomResponseInput,
} from '@/lib/domain/webhooks/schemas';
import type { CustomResponse } from '@/lib/ingress/custom-response';
import { applyCredential, credentialContext } from '@/lib/ingress/credential';
import { healthOf, type WebhookHealthView } from '@/lib/domain/health/service';
import { enqueueEvent, factoryRef } from '@/lib/domain/notifications/service';
import { ingressUrl } from '@/lib/ingress/urls';

// The webhook rules, written once for the dashboard, the API and the CLI.
//
// Credentials: a webhook's secret lives in a team secret (secretName). When
// the webhook's definition applies (creation, enabling, rotation, entering a
// provider secret) the team secret's value is copied, encrypted, onto the
// webhook: that applied credential is what the ingress checks. A later
// change of the team secret's value is taken up at the next apply, never
// silently (docs/decisions/0016-a-webhook-uses-the-credential-applied-last.md); the dashboard shows when one is pending.
//
// Where definitions live (Factory.configSource): on a dashboard factory the
// database is the truth. On a managed factory every dashboard change also
// writes or removes the webhook's definition file in the same transaction,
// and applies it. On a repository-backed factory the git repository is the
// truth: only the Enabled toggle works here, and lib/domain/definitions applies the
// production branch through the *Tx functions below.

export { MAX_WEBHOOKS_PER_FACTORY };

export type WebhookState = 'enabled' | 'disabled' | 'awaiting_secret';

export type WebhookView = {
  uid: string;
  name: string;
  authMode: AuthMode;
  signatureScheme: SchemeId | null;
  secretName: string;
  deliveryIdHeader: string | null;
  /** The Event type setting (bearer and URL token webhooks): a header, lowercase, or a body path; at most one is set. */
  eventTypeHeader: string | null;
  eventTypePath: string | null;
  enabled: boolean;
  /** For url_token webhooks, with the {token} placeholder. */
  ingressUrl: string;
  createdAt: Date;
  lastDeliveryAt: Date | null;
  /** No credential applied yet: a provider-issued secret is awaited. */
  awaitingSecret: boolean;
  /** The team secret's value changed after the credential was applied. */
  secretChangePending: boolean;
  state: WebhookState;
  /** Seconds within which an accepted delivery is expected; null: no expectation. */
  expectedIntervalSeconds: number | null;
  /** The IP allowlist (canonical ranges); empty admits every address. */
  ipAllowlist: string[];
  /** The answer to accepted and duplicate deliveries; null: the default 202 {"delivery_id"}. */
  customResponse: CustomResponse | null;
  /** Computed from the log (lib/domain/health). */
  health: WebhookHealthView;
};

export type SecretReveal = {
  webhook: WebhookView;
  /** Shown exactly once. Null when the webhook uses an existing team secret or awaits the provider's. */
  secret: string | null;
  /** The real URL: for url_token it contains the secret. */
  ingressUrl: string;
};


// 22 base62 characters: about 131 random bits, URL-safe, unguessable.
const generateUid = () => `wh_${randomBase62(22)}`;

/** A new secret for a webhook whose secret Tripline generates. */
function generateSecret(authMode: AuthMode, scheme: SchemeId | null): string {
  if (authMode === 'signature' && scheme === 'standard-webhooks') return `whsec_${randomBytes(32).toString('base64')}`;
  return randomBytes(32).toString('base64url');
}

/** Whether Tripline generates this webhook's secret (otherwise the provider issues it). */
export function secretIsGenerated(authMode: AuthMode, scheme: string | null): boolean {
  return authMode !== 'signature' || getScheme(scheme ?? '')?.secretSource === 'generated';
}

function checkProviderSecretFormat(scheme: SchemeId, secret: string): string | null {
  if (scheme === 'standard-webhooks') {
    const key = secret.startsWith('whsec_') ? secret.slice(6) : '';
    if (!key || !/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length < 16) {
      return 'A Standard Webhooks secret looks like whsec_ followed by base64 (at least 16 bytes)';
    }
  }
  const format = getScheme(scheme)?.secretFormat;
  return format && !format.pattern.test(secret) ? format.message : null;
}

type WebhookRow = {
  id: string;
  uid: string;
  name: string;
  authMode: AuthMode;
  signatureScheme: string | null;
  secretName: string;
  deliveryIdHeader: string | null;
  eventTypeHeader: string | null;
  eventTypePath: string | null;
  enabled: boolean;
  credentialEncrypted: string | null;
  credentialVersion: number | null;
  createdAt: Date;
  expectedIntervalSeconds: number | null;
  ipAllowlist: string[];
  customResponseStatus: number | null;
  customResponseContentType: string | null;
  customResponseBody: string | null;
  connection: ConnectionDefinition | null;
};

const webhookRow = {
  id: true,
  uid: true,
  name: true,
  authMode: true,
  signatureScheme: true,
  secretName: true,
  deliveryIdHeader: true,
  eventTypeHeader: true,
  eventTypePath: true,
  enabled: true,
  credentialEncrypted: true,
  credentialVersion: true,
  createdAt: true,
  expectedIntervalSeconds: true,
  ipAllowlist: true,
  customResponseStatus: true,
  customResponseContentType: true,
  customResponseBody: true,
  // Part of the definition: a managed factory's file, rewritten by an edit, keeps it.
  connection: { select: { provider: true, target: true, credentialSecretName: true, apiBaseUrl: true, eventTypes: true } },
} as const;

// The custom response's three columns (a CHECK in its migration keeps their shape) and the value they hold.
const customResponseOf = (row: WebhookRow): CustomResponse | null =>
  row.customResponseStatus === null
    ? null
    : ({ status: row.customResponseStatus, contentType: row.customResponseContentType, body: row.customResponseBody } as CustomResponse);
const customResponseColumns = (response: CustomResponse | null) => ({
  customResponseStatus: response?.status ?? null,
  customResponseContentType: response?.contentType ?? null,
  customResponseBody: response?.body ?? null,
});

/** A webhook's row as its definition. */
const definitionOf = (row: WebhookRow): WebhookDefinition => ({
  name: row.name,
  authMode: row.authMode,
  signatureScheme: (row.signatureScheme as SchemeId | null) ?? null,
  secretName: row.secretName,
  deliveryIdHeader: row.deliveryIdHeader,
  eventTypeHeader: row.eventTypeHeader,
  eventTypePath: row.eventTypePath,
  ipAllowlist: row.ipAllowlist,
  customResponse: customResponseOf(row),
  connection: row.connection,
});

function toView(row: WebhookRow, secretVersion: number | undefined, health: WebhookHealthView): WebhookView {
  const awaitingSecret = row.credentialEncrypted === null;
  // The connection has its own view and route (lib/domain/connections).
  const { connection: _connection, ...definition } = definitionOf(row);
  return {
    uid: row.uid,
    ...definition,
    enabled: row.enabled,
    ingressUrl: ingressUrl(row.uid, row.authMode),
    createdAt: row.createdAt,
    lastDeliveryAt: health.lastDeliveryAt,
    awaitingSecret,
    secretChangePending: secretVersion !== undefined && secretVersion !== row.credentialVersion,
    state: awaitingSecret ? 'awaiting_secret' : row.enabled ? 'enabled' : 'disabled',
    expectedIntervalSeconds: row.expectedIntervalSeconds,
    customResponse: customResponseOf(row),
    health,
  };
}

async function viewsFor(db: DbOrTx, factoryId: string, rows: WebhookRow[]): Promise<WebhookView[]> {
  if (rows.length === 0) return [];
  const [secrets, health] = await Promise.all([
    db.teamSecret.findMany({
      where: { factoryId, name: { in: [...new Set(rows.map((r) => r.secretName))] } },
      select: { name: true, version: true },
    }),
    healthOf(rows, db),
  ]);
  const versions = new Map(secrets.map((s) => [s.name, s.version]));
  return rows.map((row) => toView(row, versions.get(row.secretName), health.get(row.id)!));
}

export async function listWebhooks(factoryId: string, db: DbOrTx = prisma): Promise<WebhookView[]> {
  const rows = await db.webhook.findMany({
    where: { factoryId, deletedAt: null },
    select: webhookRow,
    orderBy: { createdAt: 'asc' },
  });
  return viewsFor(db, factoryId, rows);
}

async function findRow(db: DbOrTx, factoryId: string, uid: string): Promise<WebhookRow> {
  const row = await db.webhook.findFirst({ where: { factoryId, uid, deletedAt: null }, select: webhookRow });
  if (!row) throw new AppError('not_found', 'Webhook not found');
  return row;
}

export async function getWebhook(factoryId: string, uid: string, db: DbOrTx = prisma): Promise<WebhookView> {
  const [view] = await viewsFor(db, factoryId, [await findRow(db, factoryId, uid)]);
  return view!;
}

/** The row id of a live webhook (for the statistics, which are kept per row). */
export async function webhookRowId(factoryId: string, uid: string, db: DbOrTx = prisma): Promise<string> {
  return (await findRow(db, factoryId, uid)).id;
}

export async function countWebhooks(factoryId: string, db: DbOrTx = prisma): Promise<number> {
  return db.webhook.count({ where: { factoryId, deletedAt: null } });
}

export type ConfigSource = 'dashboard' | 'managed' | 'repository';

/** Locks the factory row for the rest of the transaction and says where its webhook definitions live. */
export async function lockFactoryConfig(tx: Tx, factoryId: string): Promise<ConfigSource> {
  await lockFactory(tx, factoryId);
  const factory = await tx.factory.findUnique({ where: { id: factoryId }, select: { configSource: true } });
  if (!factory) throw new AppError('not_found', 'Factory not found');
  return factory.configSource;
}

function refuseOnRepository(source: ConfigSource, what: string): void {
  if (source === 'repository') {
    throw new AppError(
      'conflict',
      `This factory's webhooks are defined in its git repository: ${what} there, on the production branch. Only Enabled can be changed here.`,
    );
  }
}


const definitionData = (definition: WebhookDefinition) => ({
  name: definition.name,
  authMode: definition.authMode,
  signatureScheme: definition.authMode === 'signature' ? definition.signatureScheme : null,
  secretName: definition.secretName,
  deliveryIdHeader: definition.deliveryIdHeader,
  eventTypeHeader: definition.authMode === 'signature' ? null : definition.eventTypeHeader,
  eventTypePath: definition.authMode === 'signature' ? null : definition.eventTypePath,
  ipAllowlist: definition.ipAllowlist,
  ...customResponseColumns(definition.customResponse),
});


/** Creates a webhook (with a new UID) from its definition and applies it. The caller holds the factory lock. */
export async function insertWebhookTx(tx: Tx, factoryId: string, definition: WebhookDefinition, requireSecret: boolean) {
  const row = await tx.webhook.create({
    data: { factoryId, uid: generateUid(), ...definitionData(definition) },
    select: webhookRow,
  });
  const applied = await applyCredential(tx, factoryId, row, requireSecret);
  return { row, applied };
}

/** Changes a webhook to its definition (the name and UID stay) and applies it. */
export async function updateWebhookTx(tx: Tx, factoryId: string, uid: string, definition: WebhookDefinition): Promise<void> {
  const existing = await findRow(tx, factoryId, uid);
  const row = await tx.webhook.update({ where: { id: existing.id }, data: definitionData(definition), select: webhookRow });
  await applyCredential(tx, factoryId, row, true);
}

/** Deleted webhooks answer 404 at once; the row stays so automations can say what they pointed at. */
export async function deleteWebhookTx(tx: Tx, factoryId: string, uid: string): Promise<void> {
  const row = await findRow(tx, factoryId, uid);
  await tx.webhook.update({ where: { id: row.id }, data: { deletedAt: new Date(), credentialEncrypted: null } });
}

/** The live webhooks as definitions, with what a plan needs to tell whether applying changes them. */
export async function listWebhookDefinitions(factoryId: string, db: DbOrTx = prisma) {
  const rows = await db.webhook.findMany({ where: { factoryId, deletedAt: null }, select: webhookRow, orderBy: { name: 'asc' } });
  return rows.map((row) => ({
    uid: row.uid,
    definition: definitionOf(row),
    credentialVersion: row.credentialEncrypted === null ? null : row.credentialVersion,
  }));
}

async function uniqueSuggestedSecretName(tx: Tx, factoryId: string, webhookName: string): Promise<string> {
  const base = suggestSecretName(webhookName);
  const taken = new Set(
    (await tx.teamSecret.findMany({ where: { factoryId, name: { startsWith: base.slice(0, 40) } }, select: { name: true } })).map((s) => s.name),
  );
  return suggestFreeSecretName(webhookName, taken);
}

export async function createWebhook(factoryId: string, input: CreateWebhookInput, db = prisma): Promise<SecretReveal> {
  const data = createWebhookSchema.parse(input);
  const scheme = data.authMode === 'signature' ? (data.signatureScheme ?? null) : null;
  if (scheme && data.providerSecret) {
    const problem = checkProviderSecretFormat(scheme, data.providerSecret);
    if (problem) throw new AppError('validation_failed', problem, { providerSecret: problem });
  }

  const result = await db.$transaction(async (tx) => {
    // The factory row lock serialises creations, so the limit and the name
    // check hold under concurrent requests on any number of instances.
    const source = await lockFactoryConfig(tx, factoryId);
    refuseOnRepository(source, 'add a definition file');
    if ((await countWebhooks(factoryId, tx)) >= MAX_WEBHOOKS_PER_FACTORY) {
      throw new AppError(
        'conflict',
        `A factory can have at most ${MAX_WEBHOOKS_PER_FACTORY} webhooks. Delete one you no longer use to create another.`,
      );
    }
    if (await tx.webhook.findFirst({ where: { factoryId, name: data.name, deletedAt: null }, select: { id: true } })) {
      throw new AppError('conflict', `A webhook named ${data.name} already exists`, { name: `A webhook named ${data.name} already exists` });
    }

    const secretName = data.secretName ?? (await uniqueSuggestedSecretName(tx, factoryId, data.name));
    const existing = await tx.teamSecret.findUnique({ where: { factoryId_name: { factoryId, name: secretName } }, select: { id: true } });
    let revealed: string | null = null;
    if (existing) {
      if (data.providerSecret) {
        const message = `${secretName} already exists: leave the provider secret blank to use it, or choose another secret name`;
        throw new AppError('conflict', message, { providerSecret: message });
      }
    } else if (data.providerSecret) {
      await createSecretTx(tx, factoryId, secretName, data.providerSecret);
    } else if (secretIsGenerated(data.authMode, scheme)) {
      revealed = generateSecret(data.authMode, scheme);
      await createSecretTx(tx, factoryId, secretName, revealed);
    } else if (source === 'managed') {
      // A definition applies only when its team secret exists (docs/definitions.md, Applying a set of files).
      const message =
        'This factory keeps its webhooks in definition files, which apply only when their team secret exists: enter the provider’s secret (a placeholder works until the provider issues it; then replace it here)';
      throw new AppError('validation_failed', message, { providerSecret: message });
    }
    // Otherwise the provider issues the secret later: the webhook awaits it.

    const definition = {
      name: data.name,
      authMode: data.authMode,
      signatureScheme: scheme,
      secretName,
      deliveryIdHeader: data.deliveryIdHeader ?? null,
      eventTypeHeader: data.eventTypeHeader ?? null,
      eventTypePath: data.eventTypePath ?? null,
      ipAllowlist: [],
      customResponse: null,
      connection: null,
    };
    // On a managed factory the dashboard writes the file, then applies it.
    if (source === 'managed') await writeDefinitionFileTx(tx, factoryId, definitionFile(definition));
    const { row, applied } = await insertWebhookTx(tx, factoryId, definition, source === 'managed');
    return { row, revealed, applied };
  });

  const webhook = await getWebhook(factoryId, result.row.uid, db);
  const token = webhook.authMode === 'url_token' ? (result.revealed ?? undefined) : undefined;
  return {
    webhook,
    secret: result.revealed,
    ingressUrl: token ? ingressUrl(webhook.uid, webhook.authMode, token) : webhook.ingressUrl,
  };
}

/** Enabling re-applies the definition, so a changed team secret is taken up (docs/decisions/0016-a-webhook-uses-the-credential-applied-last.md). */
export async function setWebhookEnabled(factoryId: string, uid: string, enabled: boolean, db = prisma): Promise<WebhookView> {
  await db.$transaction(async (tx) => {
    // Under the factory's lock, as every change to its webhooks: an apply committing a new secretName
    // meanwhile would otherwise see the credential of the name read before it.
    await lockFactory(tx, factoryId);
    const row = await findRow(tx, factoryId, uid);
    if (enabled) await applyCredential(tx, factoryId, row);
    await tx.webhook.update({ where: { id: row.id }, data: { enabled } });
  });
  forgetWebhook(uid);
  return getWebhook(factoryId, uid, db);
}

const ROTATE_ON_REPOSITORY = 'change the team secret on the Secrets page; it is taken up when the branch next applies';

/**
 * A new generated secret, effective at once with no overlap. A connected
 * webhook's provider hook gets the new secret first
 * (lib/domain/connections/service.ts, pushSecretToProvider): if the provider
 * refuses, nothing changes; if the rotation then fails here, the provider
 * gets the old secret back.
 */
export async function rotateWebhookSecret(factoryId: string, uid: string, db = prisma): Promise<{ webhook: WebhookView; secret: string; ingressUrl: string }> {
  const current = await findRow(db, factoryId, uid);
  // Refused before the provider is told anything (the transaction checks again, under the factory's lock): a refusal
  // after the push would put the old secret back on the provider, and if that failed, leave it signing with one Tripline never kept.
  const { configSource } = await db.factory.findUniqueOrThrow({ where: { id: factoryId }, select: { configSource: true } });
  refuseOnRepository(configSource, ROTATE_ON_REPOSITORY);
  const value = generateSecret(current.authMode, (current.signatureScheme as SchemeId | null) ?? null);
  const connected = secretIsGenerated(current.authMode, current.signatureScheme) && (await pushSecretToProvider(factoryId, current.id, value, db));
  const previous = connected ? await readSecretValue(db, factoryId, current.secretName) : null;
  try {
    await db.$transaction(async (tx) => {
      refuseOnRepository(await lockFactoryConfig(tx, factoryId), ROTATE_ON_REPOSITORY);
      const row = await findRow(tx, factoryId, uid);
      if (!secretIsGenerated(row.authMode, row.signatureScheme)) {
        const scheme = getScheme(row.signatureScheme ?? '')?.displayName ?? 'The provider';
        throw new AppError(
          'conflict',
          `${scheme} issues this webhook's secret: roll it on the provider's side, then enter the new provider secret.`,
        );
      }
      await putSecretTx(tx, factoryId, row.secretName, value);
      await applyCredential(tx, factoryId, row);
      // Queued with the rotation itself, sent by the housekeeping loop (never the secret, only that it changed).
      const factory = await tx.factory.findUniqueOrThrow({ where: { id: factoryId }, select: { slug: true, name: true } });
      const ref = factoryRef(factory);
      await enqueueEvent(tx, factoryId, 'webhook.secret_rotated', {
        factory: ref,
        webhook: { uid: row.uid, name: row.name, url: `${ref.url}/automations/webhooks/${row.uid}` },
      });
    });
  } catch (error) {
    if (connected && previous) await pushSecretToProvider(factoryId, current.id, previous.value, db);
    throw error;
  }
  forgetWebhook(uid);
  const webhook = await getWebhook(factoryId, uid, db);
  return { webhook, secret: value, ingressUrl: ingressUrl(uid, webhook.authMode, webhook.authMode === 'url_token' ? value : undefined) };
}

/**
 * Sets or removes the expected interval (lib/domain/health). A monitoring setting,
 * not part of the webhook's definition: it can be changed on every kind of
 * factory, repository-backed ones included, and is not in definition files.
 */
export async function setExpectedInterval(factoryId: string, uid: string, seconds: number | null, db = prisma): Promise<WebhookView> {
  const row = await findRow(db, factoryId, uid);
  await db.webhook.update({ where: { id: row.id }, data: { expectedIntervalSeconds: seconds } });
  return getWebhook(factoryId, uid, db);
}

/**
 * Changes the Event type setting (PATCH eventTypeHeader / eventTypePath; null
 * removes one). Part of the webhook's definition: on a managed factory its
 * file is rewritten in the same transaction; on a repository-backed one it is
 * changed in the file there. The changed row drops the live cache entry.
 */
export async function setEventTypeSetting(
  factoryId: string,
  uid: string,
  input: { eventTypeHeader?: string | null; eventTypePath?: string | null },
  db = prisma,
): Promise<WebhookView> {
  return updateWebhook(factoryId, uid, { eventTypeHeader: input.eventTypeHeader, eventTypePath: input.eventTypePath }, db);
}

/**
 * Sets the IP allowlist (canonical ranges; empty admits every address). Part
 * of the webhook's definition, like the Event type setting: a managed
 * factory's file is rewritten in the same transaction, a repository-backed
 * factory changes it in the file there. The live cache entry is dropped.
 */
export async function setIpAllowlist(factoryId: string, uid: string, list: readonly string[], db = prisma): Promise<WebhookView> {
  return updateWebhook(factoryId, uid, { ipAllowlist: list }, db);
}

/**
 * Sets the custom response to accepted and duplicate deliveries, or with
 * null restores the default 202 {"delivery_id"}. Part of the webhook's
 * definition, like the Event type setting: on a managed factory its file is
 * rewritten in the same transaction; a repository-backed one refuses. The
 * row's trigger drops the live cache entry on every instance.
 */
export async function setCustomResponse(factoryId: string, uid: string, input: CustomResponseInput | null, db = prisma): Promise<WebhookView> {
  return updateWebhook(factoryId, uid, { customResponse: input }, db);
}

/** A change to a webhook (PATCH): any of its settings, each as its own setter takes it. */
export type WebhookChange = {
  enabled?: boolean;
  expectedIntervalSeconds?: number | null;
  eventTypeHeader?: string | null;
  eventTypePath?: string | null;
  ipAllowlist?: readonly string[];
  customResponse?: CustomResponseInput | null;
};

/**
 * Changes any of a webhook's settings in one transaction: every check (each field's, the
 * repository refusal, the Event type rules against the webhook's mode) before anything is written,
 * so a refused change leaves the webhook as it was, never half changed. Every caller (API,
 * dashboard, CLI) goes through the same checks, each refusal naming its field. On a managed factory
 * the definition file is rewritten in the same transaction; the changed row drops the live cache
 * entry on every instance.
 */
export async function updateWebhook(factoryId: string, uid: string, change: WebhookChange, db = prisma): Promise<WebhookView> {
  const eventType = change.eventTypeHeader !== undefined || change.eventTypePath !== undefined ? eventTypeChangeSchema.parse({ eventTypeHeader: change.eventTypeHeader, eventTypePath: change.eventTypePath }) : undefined;
  const ipAllowlist = change.ipAllowlist === undefined ? undefined : z.object({ ipAllowlist: ipAllowlistSchema }).parse({ ipAllowlist: change.ipAllowlist }).ipAllowlist;
  const customResponse = change.customResponse === undefined ? undefined : customResponseChangeSchema.parse({ customResponse: change.customResponse }).customResponse;
  // The definition's own fields: in its file, so a repository-backed factory changes them there.
  const inDefinition = [eventType && 'eventTypeHeader or eventTypePath', ipAllowlist && 'ipAllowlist', customResponse !== undefined && 'customResponse'].filter((what): what is string => Boolean(what));
  await db.$transaction(async (tx) => {
    const source = inDefinition.length > 0 ? await lockFactoryConfig(tx, factoryId) : null;
    if (source) refuseOnRepository(source, `change ${inDefinition.join(', ')} in its definition file`);
    const row = await findRow(tx, factoryId, uid);
    let definition = definitionOf(row);
    const data: Record<string, unknown> = {};
    if (eventType) {
      const setting = eventTypeSettingSchema.parse({
        authMode: row.authMode,
        eventTypeHeader: eventType.eventTypeHeader === undefined ? row.eventTypeHeader : eventType.eventTypeHeader,
        eventTypePath: eventType.eventTypePath === undefined ? row.eventTypePath : eventType.eventTypePath,
      });
      definition = { ...definition, eventTypeHeader: setting.eventTypeHeader, eventTypePath: setting.eventTypePath };
      Object.assign(data, { eventTypeHeader: setting.eventTypeHeader, eventTypePath: setting.eventTypePath });
    }
    if (ipAllowlist) {
      definition = { ...definition, ipAllowlist };
      data.ipAllowlist = ipAllowlist;
    }
    if (customResponse !== undefined) {
      definition = { ...definition, customResponse };
      Object.assign(data, customResponseColumns(customResponse));
    }
    if (change.expectedIntervalSeconds !== undefined) data.expectedIntervalSeconds = change.expectedIntervalSeconds;
    if (change.enabled !== undefined) {
      if (change.enabled) await applyCredential(tx, factoryId, row);
      data.enabled = change.enabled;
    }
    if (source === 'managed') await writeDefinitionFileTx(tx, factoryId, definitionFile(definition));
    await tx.webhook.update({ where: { id: row.id }, data });
  });
  forgetWebhook(uid);
  return getWebhook(factoryId, uid, db);
}

/** The second step for provider-issued secrets, and how such a secret is replaced later. */
export async function setProviderSecret(factoryId: string, uid: string, input: { secret: string }, db = prisma): Promise<WebhookView> {
  const { secret } = providerSecretSchema.parse(input);
  await db.$transaction(async (tx) => {
    refuseOnRepository(await lockFactoryConfig(tx, factoryId), 'change the team secret on the Secrets page; it is taken up when the branch next applies');
    const row = await findRow(tx, factoryId, uid);
    if (row.authMode !== 'signature' || !row.signatureScheme) {
      throw new AppError('conflict', 'Only provider signature webhooks take a provider secret; rotate the secret instead.');
    }
    const problem = checkProviderSecretFormat(row.signatureScheme as SchemeId, secret);
    if (problem) throw new AppError('validation_failed', problem, { secret: problem });
    await putSecretTx(tx, factoryId, row.secretName, secret);
    await applyCredential(tx, factoryId, row);
  });
  forgetWebhook(uid);
  return getWebhook(factoryId, uid, db);
}


/** On a managed factory deleting also removes the webhook's definition file. */
export async function deleteWebhook(factoryId: string, uid: string, db = prisma): Promise<void> {
  await db.$transaction(async (tx) => {
    const source = await lockFactoryConfig(tx, factoryId);
    refuseOnRepository(source, 'remove its definition file');
    const row = await findRow(tx, factoryId, uid);
    if (source === 'managed') await removeDefinitionFileTx(tx, factoryId, row.name);
    await deleteWebhookTx(tx, factoryId, uid);
  });
  forgetWebhook(uid);
}

/** The credential a webhook applied, in clear, for the admin-only pages that sign a test request or reveal a handshake token. */
export async function readAppliedCredential(factoryId: string, uid: string, db: DbOrTx = prisma): Promise<string | null> {
  const row = await db.webhook.findFirst({ where: { factoryId, uid, deletedAt: null }, select: { credentialEncrypted: true } });
  return row?.credentialEncrypted ? decryptSecret(row.credentialEncrypted, credentialContext(uid)) : null;
}

