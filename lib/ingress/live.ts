import 'server-only';
import { createHmac } from 'node:crypto';
import { prisma } from '@/lib/platform/db';
import { lockFactory } from '@/lib/platform/db/locks';
import { sql } from '@/lib/platform/db/sql';
import { decryptSecret } from '@/lib/platform/crypto/encryption';
import { getSecretsKey } from '@/lib/platform/crypto/keys';
import { putSecretTx } from '@/lib/domain/secrets/service';
import { activeTriggersSql, type ActiveTrigger } from '@/lib/domain/runs/start';
import type { EventTypeSource } from '@/lib/ingress/signatures/event-types';
import { eventTypeSourceOf, type SchemeId } from '@/lib/ingress/signatures/registry';
import { applyCredential, credentialContext } from '@/lib/ingress/credential';
import { forgetWebhook, liveWebhookCache } from '@/lib/ingress/live-cache';
import { compileAllowlist } from '@/lib/ingress/allowlist-match';
import type { BlockList } from 'node:net';
import type { AuthMode } from '@/lib/domain/webhooks/schemas';
import { compileCustomResponse, type CompiledCustomResponse, type CustomResponse } from '@/lib/ingress/custom-response';

// What the ingress needs of webhooks, and nothing else: the live webhook by
// UID (cached) and the capture of a secret sent in a provider's handshake.
// The management rules live in service.ts, which the ingress does not import
// (it brings in the definition files, yaml and the run executors); an ESLint
// rule (eslint.config.mjs, hot-path/no-transitive-imports) keeps it so.

/** The log detail of a handshake whose Notion verification token is stored but not yet shown (handshake-token.ts). */
export const NOTION_TOKEN_PENDING = 'Notion verification token captured; not yet shown';

/**
 * A fingerprint of the token a handshake delivered: an HMAC under the secrets
 * key, so the log (which viewers read) says nothing of the token, while the
 * reveal can prove that what it would show is that token and not whatever
 * the webhook's credential became since (a definition file can point the
 * webhook at another team secret).
 */
export function handshakeTokenFingerprint(token: string): string {
  return createHmac('sha256', getSecretsKey()).update(`tripline handshake token\0${token}`).digest('hex').slice(0, 32);
}

/** The detail of the entry that logs Notion's handshake: pending, with the delivered token's fingerprint. */
export function notionTokenPendingDetail(token: string): string {
  return `${NOTION_TOKEN_PENDING} (${handshakeTokenFingerprint(token)})`;
}

export type LiveWebhook = {
  id: string;
  uid: string;
  factoryId: string;
  name: string;
  authMode: AuthMode;
  signatureScheme: SchemeId | null;
  deliveryIdHeader: string | null;
  /** Where its deliveries name their event type: the provider scheme's source or the webhook's Event type setting, resolved once per load. */
  eventTypeSource: EventTypeSource | null;
  /** The applied credential in clear, or null while a provider secret is awaited. */
  credential: string | null;
  /** The triggers of enabled automations that select this webhook, in automation and trigger order. */
  triggers: LiveTrigger[];
  /** The IP allowlist, compiled once per load; null admits every address (lib/ingress/allowlist.ts). */
  allowlist: BlockList | null;
  /** The answer to accepted and duplicate deliveries in place of 202 {"delivery_id"}; null: the default. */
  customResponse: CompiledCustomResponse | null;
};

export type LiveTrigger = ActiveTrigger;

/** For the ingress: an enabled, undeleted webhook by UID, with its applied credential (cached, see live-cache.ts). */
export function findLiveWebhook(uid: string): Promise<LiveWebhook | null> {
  return liveWebhookCache<LiveWebhook>().read(uid, () => loadLiveWebhook(uid));
}

async function loadLiveWebhook(uid: string): Promise<LiveWebhook | null> {
  // Plain SQL: this runs on every ingress request the cache cannot answer.
  const [row] = await sql<{
    id: string;
    uid: string;
    factoryId: string;
    name: string;
    authMode: AuthMode;
    signatureScheme: string | null;
    deliveryIdHeader: string | null;
    eventTypeHeader: string | null;
    eventTypePath: string | null;
    credentialEncrypted: string | null;
    ipAllowlist: string[];
    triggers: LiveTrigger[] | null;
    customResponseStatus: CustomResponse['status'] | null;
    customResponseContentType: CustomResponse['contentType'];
    customResponseBody: string | null;
  }>(
    // The triggers come along in the same query: most deliveries then cost no
    // lookup at all (the cache), and the rest one round trip.
    `SELECT w."id", w."uid", w."factoryId", w."name", w."authMode"::text AS "authMode", w."signatureScheme", w."deliveryIdHeader", w."eventTypeHeader", w."eventTypePath",
            w."credentialEncrypted", w."ipAllowlist", w."customResponseStatus", w."customResponseContentType", w."customResponseBody",
            ${activeTriggersSql('w."uid"', 'w."factoryId"')} AS "triggers"
       FROM "Webhook" w WHERE w."uid" = $1 AND w."enabled" AND w."deletedAt" IS NULL`,
    [uid],
  );
  if (!row) return null;
  return {
    id: row.id,
    uid: row.uid,
    factoryId: row.factoryId,
    name: row.name,
    authMode: row.authMode,
    signatureScheme: (row.signatureScheme as SchemeId | null) ?? null,
    deliveryIdHeader: row.deliveryIdHeader,
    eventTypeSource: eventTypeSourceOf(row),
    credential: row.credentialEncrypted ? decryptSecret(row.credentialEncrypted, credentialContext(row.uid)) : null,
    triggers: row.triggers ?? [],
    allowlist: compileAllowlist(row.ipAllowlist),
    customResponse:
      row.customResponseStatus === null
        ? null
        : compileCustomResponse({ status: row.customResponseStatus, contentType: row.customResponseContentType, body: row.customResponseBody }),
  };
}

/**
 * For the ingress: stores a secret that the provider sent in its verification
 * handshake (Asana's X-Hook-Secret, Notion's verification token) as the
 * webhook's provider secret. Only a webhook still waiting for its secret takes
 * one: once it has a credential, a second "handshake" from whoever learned the
 * URL cannot replace it. Returns whether the secret was stored.
 */
export async function captureHandshakeSecret(webhookId: string, secret: string, db = prisma): Promise<boolean> {
  const select = { id: true, uid: true, factoryId: true, authMode: true, secretName: true, credentialEncrypted: true } as const;
  const stored = await db.$transaction(async (tx) => {
    const found = await tx.webhook.findFirst({ where: { id: webhookId, enabled: true, deletedAt: null }, select });
    if (!found) return null;
    // Serialised with every other change to the factory's configuration, and read again under the lock,
    // so two racing handshakes store one secret and the other is refused.
    await lockFactory(tx, found.factoryId);
    const row = await tx.webhook.findFirst({ where: { id: webhookId, enabled: true, deletedAt: null }, select });
    if (!row || row.authMode !== 'signature' || row.credentialEncrypted !== null) return null;
    await putSecretTx(tx, row.factoryId, row.secretName, secret);
    await applyCredential(tx, row.factoryId, row);
    return row.uid;
  });
  if (stored) forgetWebhook(stored);
  return stored !== null;
}
