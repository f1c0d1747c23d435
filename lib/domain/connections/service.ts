import 'server-only';
import { randomBytes } from 'node:crypto';
import { prisma, type Db, type DbOrTx, type Tx } from '@/lib/platform/db';
import { lockFactory } from '@/lib/platform/db/locks';
import { AppError } from '@/lib/platform/http/errors';
import { log } from '@/lib/platform/log';
import { putSecretTx, readSecretValue } from '@/lib/domain/secrets/service';
import { applyCredential } from '@/lib/ingress/credential';
import { forgetWebhook } from '@/lib/ingress/live-cache';
import { ingressUrl } from '@/lib/ingress/urls';
import type { ConfigSource, ConnectionProvider } from '@/lib/generated/prisma/client';
import { checkApiBaseUrl, type Bounds } from '@/lib/domain/connections/fetch';
import { ProviderError, type ProviderAdapter, type ProviderModule } from '@/lib/domain/connections/provider';
import { providerModule } from '@/lib/domain/connections/providers';
import {
  apiBaseUrlOf,
  connectWebhookSchema,
  disconnectWebhookSchema,
  PROVIDER_NAME,
  type ConnectWebhookInput,
  type ConnectionSettings,
  type DisconnectWebhookInput,
} from '@/lib/domain/connections/schemas';
import { wakeConnectionChecks } from '@/lib/domain/connections/wake';

// Connecting a webhook to its sender through the sender's API
// (docs/connections.md): Tripline creates the provider's hook pointing at
// the ingress URL, or adopts one that already points there, and sets the
// signing secret on both sides, so no secret is ever copied by hand.
//
// The order of the two sides, when Tripline makes the secret (GitHub):
// Tripline's side first (the team secret and the webhook's applied
// credential, committed), then the provider's. GitHub pings a new hook at
// once, signed with the new secret: the ping must find that secret applied.
// If the provider then refuses, Tripline's side is put back as it was. When
// the provider makes it (Stripe returns an endpoint's `whsec_` once, at
// creation, and sends nothing until an event happens): the provider's side
// first, then its secret stored (connectProviderSecret). A rotation
// (pushSecretToProviderTx) goes the other way:
// the provider is told inside the rotation's transaction, so a provider that
// refuses leaves both sides unchanged.

const logger = log('connections');

export type ConnectionRow = {
  id: string;
  factoryId: string;
  webhookId: string;
  provider: ConnectionProvider;
  apiBaseUrl: string;
  credentialSecretName: string;
  target: string;
  eventTypes: string[];
  providerHookId: string | null;
  watermark: Date | null;
  lastCheckAt: Date | null;
  nextCheckAt: Date | null;
  lastError: string | null;
  consecutiveFailures: number;
  lastMissing: number;
  lastRecovered: number;
  leaseUntil: Date | null;
  createdAt: Date;
};

/** What the API shows of a connection: never the credential, only the team secret's name. */
export type ConnectionView = Omit<ConnectionRow, 'id' | 'factoryId' | 'webhookId' | 'leaseUntil'> & {
  /** The hook's page on the provider's site, for people. */
  providerHookUrl: string | null;
  /** A pass holds the lease right now. */
  checking: boolean;
  /** Log entries of the last 7 days that a pass recovered (accepted, with an origin). */
  recoveredLast7Days: number;
};

export const connectionRow = {
  id: true,
  factoryId: true,
  webhookId: true,
  provider: true,
  apiBaseUrl: true,
  credentialSecretName: true,
  target: true,
  eventTypes: true,
  providerHookId: true,
  watermark: true,
  lastCheckAt: true,
  nextCheckAt: true,
  lastError: true,
  consecutiveFailures: true,
  lastMissing: true,
  lastRecovered: true,
  leaseUntil: true,
  createdAt: true,
} as const;

function hookPage(row: Pick<ConnectionRow, 'provider' | 'apiBaseUrl' | 'target' | 'providerHookId'>): string | null {
  return row.providerHookId ? (providerModule(row.provider)?.hookPage(row.provider, row.apiBaseUrl, row.target, row.providerHookId) ?? null) : null;
}

/** The provider's module, or the error a person sees for a kind that cannot be connected yet. */
export function moduleFor(kind: ConnectionProvider): ProviderModule {
  const provider = providerModule(kind);
  if (!provider) throw new ProviderError(`Connecting ${PROVIDER_NAME[kind]} is not available yet`, null, { permanent: true });
  return provider;
}

export function toConnectionView(row: ConnectionRow, recoveredLast7Days: number, now = new Date()): ConnectionView {
  return {
    provider: row.provider,
    apiBaseUrl: row.apiBaseUrl,
    credentialSecretName: row.credentialSecretName,
    target: row.target,
    eventTypes: row.eventTypes,
    providerHookId: row.providerHookId,
    providerHookUrl: hookPage(row),
    watermark: row.watermark,
    lastCheckAt: row.lastCheckAt,
    nextCheckAt: row.nextCheckAt,
    lastError: row.lastError,
    consecutiveFailures: row.consecutiveFailures,
    lastMissing: row.lastMissing,
    lastRecovered: row.lastRecovered,
    checking: row.leaseUntil !== null && row.leaseUntil > now,
    recoveredLast7Days,
    createdAt: row.createdAt,
  };
}

const RECOVERED_WINDOW_MS = 7 * 86_400_000;

/** The connection as the API and the dashboard show it, with what passes recovered into the log in the last 7 days. */
async function viewOf(db: DbOrTx, row: ConnectionRow): Promise<ConnectionView> {
  const now = new Date();
  // Follows the (webhookId, status, receivedAt) index; origin is set only on entries a pass recovered or imported.
  const recovered = await db.delivery.count({
    where: { webhookId: row.webhookId, status: 'accepted', origin: { not: null }, receivedAt: { gte: new Date(now.getTime() - RECOVERED_WINDOW_MS) } },
  });
  return toConnectionView(row, recovered, now);
}

/** The provider's adapter for a connection, with its API credential read from the team secret. */
export async function openAdapter(db: DbOrTx, row: Pick<ConnectionRow, 'factoryId' | 'provider' | 'apiBaseUrl' | 'credentialSecretName' | 'target'>, bounds: Bounds): Promise<ProviderAdapter> {
  const credential = await readSecretValue(db, row.factoryId, row.credentialSecretName);
  if (!credential) {
    throw new ProviderError(`No team secret is named ${row.credentialSecretName}: create it on the Secrets page with the API token`, null, { permanent: true });
  }
  return moduleFor(row.provider).open({ kind: row.provider, apiBaseUrl: row.apiBaseUrl, credential: credential.value, target: row.target, bounds });
}

/** Bounds for one call made on a person's behalf (connect, disconnect, rotate). */
export const requestBounds = (): Bounds => ({ bytesLeft: 5_000_000, deadline: Date.now() + 30_000, requests: 0 });

/** A provider's failure as the error the person who asked sees. */
function providerFailure(error: unknown, provider: ConnectionProvider): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ProviderError && error.options.permanent) {
    const field = error.status === 401 || error.status === 403 || error.status === 404 || error.status === null ? 'credentialSecretName' : 'target';
    return new AppError('validation_failed', message, { [field]: message });
  }
  return new AppError('unavailable', `${PROVIDER_NAME[provider]} did not answer as expected: ${message}`);
}

type WebhookForConnection = { id: string; uid: string; name: string; authMode: 'token' | 'url_token' | 'signature'; signatureScheme: string | null; secretName: string };

async function findWebhook(db: DbOrTx, factoryId: string, uid: string): Promise<WebhookForConnection> {
  const webhook = await db.webhook.findFirst({
    where: { factoryId, uid, deletedAt: null },
    select: { id: true, uid: true, name: true, authMode: true, signatureScheme: true, secretName: true },
  });
  if (!webhook) throw new AppError('not_found', 'Webhook not found');
  return webhook;
}

export async function getConnection(factoryId: string, uid: string, db: DbOrTx = prisma): Promise<ConnectionView | null> {
  const webhook = await findWebhook(db, factoryId, uid);
  const row = await db.webhookConnection.findFirst({ where: { factoryId, webhookId: webhook.id }, select: connectionRow });
  return row ? viewOf(db, row) : null;
}

/** Who asks: a person (API, dashboard, CLI) or an apply of definition files, which declare the connection themselves. */
export type ConnectionCaller = { fromDefinitions?: boolean };

async function configSourceOf(db: DbOrTx, factoryId: string): Promise<ConfigSource> {
  const factory = await db.factory.findUnique({ where: { id: factoryId }, select: { configSource: true } });
  if (!factory) throw new AppError('not_found', 'Factory not found');
  return factory.configSource;
}

/**
 * Where definition files describe the webhooks (a managed or a
 * repository-backed factory), a connection is part of the webhook's file
 * (docs/decisions/0109-a-connection-in-a-definition-file-is-made-by-apply.md):
 * only an apply of those files connects or disconnects, so the files, the
 * connection and the webhook's team secret never disagree.
 */
function refuseWhereFilesDecide(source: ConfigSource, caller: ConnectionCaller, what: 'connect' | 'disconnect'): void {
  if (caller.fromDefinitions || source === 'dashboard') return;
  const change = what === 'connect' ? 'add `connection:` to' : 'remove `connection:` from';
  throw new AppError(
    'conflict',
    source === 'repository'
      ? `This factory's webhooks are defined in its git repository, whose branch sets their team secrets: ${change} the webhook's definition file there, on the production branch.`
      : `This factory keeps its webhooks in definition files: ${change} the webhook's definition file and apply it.`,
  );
}

/**
 * The checks a connection's settings pass before any provider is asked: by
 * connect, and by a plan of definition files (for a webhook the plan may
 * only be about to create). Returns the API base URL to use.
 */
export async function checkConnectionSettings(
  factoryId: string,
  webhook: Pick<WebhookForConnection, 'authMode' | 'signatureScheme' | 'secretName'>,
  data: ConnectionSettings,
  db: DbOrTx = prisma,
): Promise<string> {
  const described = providerModule(data.provider);
  if (!described) {
    const message = `Connecting ${PROVIDER_NAME[data.provider]} is not available yet`;
    throw new AppError('validation_failed', message, { provider: message });
  }
  const apiBaseUrl = apiBaseUrlOf(data.provider, data.apiBaseUrl);
  checkApiBaseUrl(apiBaseUrl);
  const badTarget = described.checkTarget(data.provider, data.target);
  if (badTarget) throw new AppError('validation_failed', badTarget, { target: badTarget });
  const badEvents = described.checkEventTypes?.(data.eventTypes) ?? null;
  if (badEvents) throw new AppError('validation_failed', badEvents, { eventTypes: badEvents });
  if (webhook.authMode !== 'signature' || webhook.signatureScheme !== described.scheme) {
    throw new AppError('conflict', `Only a webhook that verifies ${described.name} signatures can be connected to ${described.name}`);
  }
  if (data.credentialSecretName === webhook.secretName) {
    // Connecting writes a new signing secret into the webhook's team secret: it would overwrite the API token.
    const message = `${data.credentialSecretName} is the webhook's own signing secret: keep the API token in a team secret of its own`;
    throw new AppError('validation_failed', message, { credentialSecretName: message });
  }
  if (!(await readSecretValue(db, factoryId, data.credentialSecretName))) {
    const message = `No team secret is named ${data.credentialSecretName}: create it on the Secrets page with the API token`;
    throw new AppError('validation_failed', message, { credentialSecretName: message });
  }
  return apiBaseUrl;
}

const generateSecret = () => randomBytes(32).toString('base64url');

type ConnectSide = {
  webhook: WebhookForConnection;
  target: Pick<ConnectionRow, 'factoryId' | 'provider' | 'apiBaseUrl' | 'credentialSecretName' | 'target'>;
  url: string;
  events: string[];
  /** The provider's hook this connection made before, when the provider and target are the same. */
  known: string | null;
  caller: ConnectionCaller;
  /** The connection's hook when this connect read it (null: no connection): another connect that ends first changes it. */
  readHookId: string | null;
  /** Writes the connection's row for a hook. */
  record: (tx: DbOrTx, hookId: string, created: boolean) => Promise<ConnectionRow>;
};

/** What a connect did on the provider's side, and the connection's row when it was written with the secret. */
type Connected = { hookId: string; created: boolean; row?: ConnectionRow };

/** The refusal of a connect that another connect of the same webhook overtook (the later one to commit gives way). */
export const OVERTAKEN_MESSAGE = 'Another connect of this webhook finished first: this one changed nothing (its new endpoint was deleted again). Look at the connection, and connect again if it is not what you want.';

/** Within a transaction: the factory's row locked, and connecting refused where definition files decide. */
async function refuseConnectTx(tx: Tx, factoryId: string, caller: ConnectionCaller): Promise<void> {
  await lockFactory(tx, factoryId);
  refuseWhereFilesDecide(await configSourceOf(tx, factoryId), caller, 'connect');
}

const unlessGone = (error: unknown) => (error instanceof ProviderError && error.status === 404 ? null : Promise.reject(error));

/**
 * Tripline makes the secret (GitHub): Tripline's side first, committed, so
 * the provider's first request (GitHub's ping) verifies; then the provider's
 * hook is updated, adopted or created with it. If the provider refuses,
 * Tripline's side goes back to the secret it had.
 */
async function connectTriplineSecret(db: Db, side: ConnectSide): Promise<Connected> {
  const { webhook, target } = side;
  const secret = generateSecret();
  const previousSecret = await db.$transaction(async (tx) => {
    await refuseConnectTx(tx, target.factoryId, side.caller);
    const previous = await readSecretValue(tx, target.factoryId, webhook.secretName);
    await putSecretTx(tx, target.factoryId, webhook.secretName, secret);
    await applyCredential(tx, target.factoryId, webhook);
    return previous?.value ?? null;
  });
  forgetWebhook(webhook.uid);
  try {
    const provider = await openAdapter(db, target, requestBounds());
    const settings = { url: side.url, secret, events: side.events };
    // The hook this connection made, unless someone deleted it on the provider's side since.
    const updated = side.known ? await provider.updateHook(side.known, settings).catch(unlessGone) : null;
    if (updated) return { hookId: updated.id, created: false };
    const adopt = await provider.findHook(side.url);
    if (adopt) return { hookId: (await provider.updateHook(adopt.id, settings)).id, created: false };
    return { hookId: (await provider.createHook(settings)).id, created: true };
  } catch (error) {
    if (previousSecret !== null) {
      await db.$transaction(async (tx) => {
        await lockFactory(tx, target.factoryId);
        // Only this attempt's secret goes back: a connect that ran meanwhile (another apply, another instance)
        // put its own secret on the provider's hook, and taking it away would fail every delivery from then on.
        if ((await readSecretValue(tx, target.factoryId, webhook.secretName))?.value !== secret) return;
        await putSecretTx(tx, target.factoryId, webhook.secretName, previousSecret);
        await applyCredential(tx, target.factoryId, webhook);
      });
      forgetWebhook(webhook.uid);
    }
    logger.warn({ webhook: webhook.uid, provider: target.provider, error: (error as Error).message }, 'connect failed');
    throw providerFailure(error, target.provider);
  }
}

/**
 * The provider makes the secret and returns it once, when it creates the
 * hook (Stripe's `whsec_`): the hook first, then its secret stored in the
 * webhook's team secret and applied. The hook this connection made keeps its
 * secret (only its URL and events change). A hook that already sends to the
 * ingress URL but was not made by this connection is not adopted: its secret
 * can never be read, so connecting is refused with a message naming it
 * (docs/decisions/0111-stripe-connections-recover-by-import.md). If storing
 * the secret with the connection's row fails, or another connect of the
 * webhook committed first, the new hook is deleted again.
 */
async function connectProviderSecret(db: Db, side: ConnectSide): Promise<Connected> {
  const { webhook, target } = side;
  const maker = moduleFor(target.provider);
  // Refused before anything is created on the provider's side.
  await db.$transaction((tx) => refuseConnectTx(tx, target.factoryId, side.caller));
  let provider: ProviderAdapter;
  let hook: { id: string; secret?: string };
  try {
    provider = await openAdapter(db, target, requestBounds());
    const settings = { url: side.url, secret: '', events: side.events };
    const updated = side.known ? await provider.updateHook(side.known, settings).catch(unlessGone) : null;
    if (updated) return { hookId: updated.id, created: false };
    const other = await provider.findHook(side.url);
    if (other) {
      const page = maker.hookPage(target.provider, target.apiBaseUrl, target.target, other.id);
      const message = `${maker.name}'s webhook endpoint ${other.id} already sends to this webhook's URL, and ${maker.name} never shows its signing secret again, so Tripline cannot take it over. Delete it in the ${maker.name} Dashboard${page ? ` (${page})` : ''}, then connect again: Tripline creates a new endpoint and stores its secret.`;
      throw new AppError('conflict', message, { target: message });
    }
    hook = await provider.createHook(settings);
    if (!hook.secret) throw new ProviderError(`${maker.name} created the hook without returning its signing secret`, null);
  } catch (error) {
    logger.warn({ webhook: webhook.uid, provider: target.provider, error: (error as Error).message }, 'connect failed');
    throw providerFailure(error, target.provider);
  }
  let row: ConnectionRow;
  try {
    // The secret and the connection's row in one transaction, under the factory's lock: a hook whose secret is stored
    // is always the connection's (a row written afterwards could fail, and a hook Tripline holds the secret of but does
    // not know would be refused as someone else's at the next connect), and of two connects that each created an
    // endpoint, the one that commits second finds the row changed and gives way, deleting its own.
    row = await db.$transaction(async (tx) => {
      await refuseConnectTx(tx, target.factoryId, side.caller);
      const now = await tx.webhookConnection.findFirst({ where: { factoryId: target.factoryId, webhookId: webhook.id }, select: { providerHookId: true } });
      if ((now?.providerHookId ?? null) !== side.readHookId) throw new AppError('conflict', OVERTAKEN_MESSAGE);
      await putSecretTx(tx, target.factoryId, webhook.secretName, hook.secret!);
      await applyCredential(tx, target.factoryId, webhook);
      return side.record(tx, hook.id, true);
    });
  } catch (error) {
    // Without its secret stored, the new hook's deliveries could never verify: it goes again.
    await provider.deleteHook(hook.id).catch((cleanup: unknown) => logger.warn({ webhook: webhook.uid, hook: hook.id, error: (cleanup as Error).message }, 'could not delete the new hook'));
    throw error;
  }
  forgetWebhook(webhook.uid);
  return { hookId: hook.id, created: true, row };
}

/**
 * Connects the webhook to its sender (or changes the connection's settings):
 * creates or adopts the provider's hook, with a new secret on both sides.
 */
export async function connectWebhook(factoryId: string, uid: string, input: ConnectWebhookInput, db = prisma, caller: ConnectionCaller = {}): Promise<ConnectionView> {
  const data = connectWebhookSchema.parse(input);
  const webhook = await findWebhook(db, factoryId, uid);
  const apiBaseUrl = await checkConnectionSettings(factoryId, webhook, data, db);
  const url = ingressUrl(webhook.uid, webhook.authMode);
  const existing = await db.webhookConnection.findFirst({ where: { factoryId, webhookId: webhook.id }, select: connectionRow });
  const target = { factoryId, provider: data.provider, apiBaseUrl, credentialSecretName: data.credentialSecretName, target: data.target };
  // The hook this connection made, if it is still this provider's and target's.
  const known = existing && existing.provider === data.provider && existing.target === data.target && existing.apiBaseUrl === apiBaseUrl ? existing.providerHookId : null;
  const described = moduleFor(data.provider);
  const connect = described.secretMadeBy === 'provider' ? connectProviderSecret : connectTriplineSecret;
  const record = (tx: DbOrTx, hookId: string, created: boolean) => {
    const fields = {
      provider: data.provider,
      apiBaseUrl,
      credentialSecretName: data.credentialSecretName,
      target: data.target,
      eventTypes: data.eventTypes,
      providerHookId: hookId,
      nextCheckAt: new Date(),
      lastError: null,
      consecutiveFailures: 0,
      // A recovery pass running now read the connection as it was (another hook, target or events): taking its
      // lease stops it before its next request, and its end writes nothing (recover.ts), so its watermark and its
      // error never land on the connection as connected now, which is due for a pass of its own at once.
      leaseOwner: null,
      leaseUntil: null,
    };
    return tx.webhookConnection.upsert({
      where: { webhookId: webhook.id },
      create: { factoryId, webhookId: webhook.id, ...fields },
      // Another provider or target, or a new endpoint whose events start afresh (Stripe): the watermark starts over.
      update: existing && (existing.provider !== data.provider || existing.target !== data.target || (created && described.secretMadeBy === 'provider')) ? { ...fields, watermark: null } : fields,
      select: connectionRow,
    });
  };
  const connected = await connect(db, { webhook, target, url, events: data.eventTypes, known, caller, readHookId: existing?.providerHookId ?? null, record });
  const { hookId } = connected;
  const row = connected.row ?? (await record(db, hookId, connected.created));
  logger.info({ webhook: uid, provider: data.provider, hook: hookId }, 'connected');
  wakeConnectionChecks();
  return viewOf(db, row);
}

/** Removes the connection; with deleteProviderHook the provider's hook too (it is then gone for good). */
export async function disconnectWebhook(factoryId: string, uid: string, input: DisconnectWebhookInput, db = prisma, caller: ConnectionCaller = {}): Promise<void> {
  const { deleteProviderHook } = disconnectWebhookSchema.parse(input);
  refuseWhereFilesDecide(await configSourceOf(db, factoryId), caller, 'disconnect');
  const webhook = await findWebhook(db, factoryId, uid);
  const row = await db.webhookConnection.findFirst({ where: { factoryId, webhookId: webhook.id }, select: connectionRow });
  if (!row) throw new AppError('not_found', 'This webhook is not connected');
  if (deleteProviderHook && row.providerHookId) {
    try {
      await (await openAdapter(db, row, requestBounds())).deleteHook(row.providerHookId);
    } catch (error) {
      throw providerFailure(error, row.provider);
    }
  }
  await db.webhookConnection.deleteMany({ where: { id: row.id, factoryId } });
}

/**
 * A rotation of a connected webhook's secret, on the provider's side: sets
 * `secret` on the provider's hook. False when the webhook is not connected.
 * The rotation calls it before its own transaction (a transaction held open
 * across a provider's answer would stall the embedded database's one
 * connection) and again with the old secret if that transaction fails;
 * deliveries signed in between fail at the ingress and the next recovery
 * pass asks for them again.
 */
export async function pushSecretToProvider(factoryId: string, webhookId: string, secret: string, db: DbOrTx = prisma): Promise<boolean> {
  const row = await db.webhookConnection.findFirst({ where: { factoryId, webhookId }, select: connectionRow });
  if (!row?.providerHookId) return false;
  const maker = moduleFor(row.provider);
  if (maker.secretMadeBy === 'provider') {
    // Stripe cannot be given a secret (docs/decisions/0111-stripe-connections-recover-by-import.md).
    throw new AppError(
      'conflict',
      `${maker.name} makes this webhook's signing secret and cannot be given a new one: roll it in the ${maker.name} Dashboard and enter the new secret, or disconnect deleting the endpoint and connect again for a new endpoint with a new secret.`,
    );
  }
  const webhook = await db.webhook.findUniqueOrThrow({ where: { id: webhookId }, select: { uid: true, authMode: true } });
  try {
    const provider = await openAdapter(db, row, requestBounds());
    await provider.updateHook(row.providerHookId, { url: ingressUrl(webhook.uid, webhook.authMode), secret, events: row.eventTypes });
  } catch (error) {
    throw providerFailure(error, row.provider);
  }
  return true;
}

/** "Check now": the connection's next pass is due at once, and this instance's loop is woken. */
export async function requestCheck(factoryId: string, uid: string, db: DbOrTx = prisma): Promise<ConnectionView> {
  const webhook = await findWebhook(db, factoryId, uid);
  const { count } = await db.webhookConnection.updateMany({ where: { factoryId, webhookId: webhook.id }, data: { nextCheckAt: new Date() } });
  if (count === 0) throw new AppError('not_found', 'This webhook is not connected');
  wakeConnectionChecks();
  return (await getConnection(factoryId, uid, db))!;
}
