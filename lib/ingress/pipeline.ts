import 'server-only';
import { authenticate } from '@/lib/ingress/authenticate';
import { declaredSize, declaredTooLarge, readBodyWithLimit } from '@/lib/platform/http/body';
import { requestNow } from '@/lib/ingress/clock';
import { redactHeaders, signatureHeaderValues } from '@/lib/platform/http/sensitive-headers';
import { answerChallenge, answerHandshake } from '@/lib/ingress/handshakes';
import { allowlistAdmits } from '@/lib/ingress/allowlist-match';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, noteDatabaseUnavailable } from '@/lib/platform/db/unavailable';
import { deliveryIdentity, normaliseSenderId, requestIdentity, type Identity } from '@/lib/ingress/identity';
import { parseJsonBody } from '@/lib/ingress/json';
import { INGRESS_WAITING, MAX_BODY_BYTES } from '@/lib/ingress/limits';
import { recordAuthFailure, recordUnauthenticated } from '@/lib/ingress/log-budget';
import { consume, foldedDeliveryLimit, getLimiters } from '@/lib/ingress/rate-limit';
import { accepting, recordRejected, type RejectedStatus } from '@/lib/ingress/record';
import { CommitQueueBusy } from '@/lib/ingress/group-commit';
import { episodes, log } from '@/lib/platform/log';
import { note, observeIngress } from '@/lib/ingress/observe';
import { accepted, ingressError, notFound, rateLimited } from '@/lib/ingress/responses';
import { clientAddress } from '@/lib/platform/entry/client-address';
import { receivedHeaders } from '@/lib/platform/entry/request-context';
import { getScheme } from '@/lib/ingress/signatures/registry';
import { bodyIdentifies, providerBodyDeliveryId, providerDeliveryId } from '@/lib/ingress/signatures/verify';
import { acceptDelivery } from '@/lib/ingress/accept';
import { findLiveWebhook, type LiveWebhook } from '@/lib/ingress/live';
import { ingressUrl, UID_SHAPE } from '@/lib/ingress/urls';

// POST /webhooks/w/<uid>[/<token>]: the hot path, in this order:
//   1. find the live webhook (unknown, disabled, deleted: one identical 404);
//      a client address outside its IP allowlist gets the same 404 (logged as Refused (address))
//   2. challenges before any body: Dropbox's, Okta's, Meta's and X's GET, Graph's validation POST (lib/ingress/handshakes.ts); otherwise only POST (405 with Allow: POST); a declared Content-Length over the limit: 413 at once
//   3. token and URL-token credentials, before the body is read (401)
//   4. read the body, never more than the limit (413)
//   5. verification handshakes, then provider signatures over the raw bytes (401)
//   6. the failed-authentication budget (per webhook and client address) turns further failures into 429
//   7. the delivery rate limit (429 with Retry-After); on PostgreSQL a valid
//      delivery is counted by the statement of step 9
//   8. valid JSON (400)
//   9. delivery identity, dedup, the log entry and the runs it starts in one statement (202, or the webhook's custom response)
// Entries written at steps 2 to 6 (no valid credentials yet, or none at all)
// are under the webhook's budget of unauthenticated entries (log-budget.ts):
// past it, 429 and no entry, only a count in the minute's refused summary.

export type IngressParams = { uid: string; token?: string };

/** The identity of a rejected request: the sender's ID when it gave one, else the body hash, else a request ID. */
function rejectedIdentity(webhook: LiveWebhook, headers: Headers, body: Buffer | null): Identity {
  if (body) {
    return deliveryIdentity({ headers, body, configuredHeader: webhook.deliveryIdHeader, providerId: providerIdFor(webhook, headers), bodyIdentifies: bodyIdentifiesFor(webhook) });
  }
  for (const header of [webhook.deliveryIdHeader, 'x-service-delivery-id']) {
    const id = header ? normaliseSenderId(headers.get(header) ?? '') : null;
    if (id) return { deliveryId: id, source: header === webhook.deliveryIdHeader ? 'configured_header' : 'service_header' };
  }
  return requestIdentity();
}

const bodyIdentifiesFor = (webhook: LiveWebhook) => bodyIdentifies(webhook.authMode === 'signature' ? webhook.signatureScheme : null);

function providerIdFor(webhook: LiveWebhook, headers: Headers): string | null {
  return webhook.authMode === 'signature' && webhook.signatureScheme ? providerDeliveryId(webhook.signatureScheme, headers) : null;
}

/** Answers an ingress request, counted and logged by lib/ingress/observe.ts. */
export function handleIngress(request: Request, params: IngressParams): Promise<Response> {
  return observeIngress(request, params.uid, () => serve(request, params).catch((error: unknown) => unavailable(error)));
}

/**
 * 503 with Retry-After when the database cannot be reached, or when the
 * deliveries waiting for it are over their budget (lib/ingress/limits.ts,
 * INGRESS_WAITING): the request is fine, so the sender should retry it (a 500
 * says it failed). Nothing was written, and deduplication makes the retry
 * safe. Anything else is rethrown.
 */
function unavailable(error: unknown): Response {
  if (error instanceof CommitQueueBusy) noteWaitingBudget(error);
  else if (isDatabaseUnavailable(error)) noteDatabaseUnavailable(error);
  else throw error;
  return ingressError('unavailable', { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
}

// One log line per episode of refusals by the waiting budget, like the database's outages.
const waitingEpisodeStarts = episodes(15_000);
function noteWaitingBudget(error: CommitQueueBusy): void {
  if (waitingEpisodeStarts()) {
    log('ingress').warn(
      { reason: error.reason, waiting: accepting().stats().waiting, retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS, ...INGRESS_WAITING },
      'deliveries are waiting too long for the database: answering 503 with Retry-After (logged once per episode)',
    );
  }
}

/**
 * A request from outside the webhook's IP allowlist: the answer of an unknown
 * webhook, so the list says nothing of the webhook to whoever is outside it.
 * Its entry is under the failed-authentication budget of its address, then
 * the webhook's budget of unauthenticated entries, like a wrong signature;
 * past them it is only counted (/metrics). It never reaches the delivery rate
 * limit, so a refused flood leaves the allowed sender's rate alone.
 */
async function refuseAddress(request: Request, webhook: LiveWebhook, address: string, logAddress: string | null): Promise<Response> {
  const detail = `the client address ${address} is outside the webhook's IP allowlist`;
  note(request, { refusedAddress: true, detail });
  // A refused request's body is never read: the log records the size it declared.
  const size = declaredSize(request.headers) ?? 0;
  await recordAuthFailure({ webhookId: webhook.id, webhookUid: webhook.uid, status: 'refused_address', identity: requestIdentity(), size, detail, remoteAddress: logAddress }, address);
  return notFound();
}

async function serve(request: Request, params: IngressParams): Promise<Response> {
  if (!UID_SHAPE.test(params.uid)) return notFound();
  const webhook = await findLiveWebhook(params.uid);
  // A path token only exists for url_token webhooks; anywhere else the URL is unknown.
  if (!webhook || (params.token !== undefined && webhook.authMode !== 'url_token')) return notFound();
  note(request, { authMode: webhook.authMode, scheme: webhook.signatureScheme });
  const headers = request.headers;
  // The headers as the sender sent them, for its delivery ID: the server entry replaces X-Request-Id
  // (a request ID of its own, unless a trusted proxy sent one) and the forwarding headers, and a
  // sender's X-Request-Id is its delivery ID where the webhook or its scheme reads it (Bitbucket Data Center).
  const sent = receivedHeaders() ?? headers;
  // The address the server entry resolved from the socket (lib/platform/entry/client-address.ts); never a header the client chose.
  const address = clientAddress(headers);
  const logAddress = address === 'unknown' ? null : address;
  if (!allowlistAdmits(webhook.allowlist, address)) return refuseAddress(request, webhook, address, logAddress);
  // Challenges that come before any body (Dropbox, Okta, Meta, X; Graph's validation POST): answered, or a failed authentication.
  const challenge = await answerChallenge(webhook, request, address);
  if (challenge) return challenge;
  if (request.method !== 'POST') return ingressError('method_not_allowed', { Allow: 'POST' });

  /** A metadata-only entry for a request without valid credentials, under the webhook's unauthenticated budget (and for a failed authentication, its address's budget first); `answer` when written, else 429. */
  const unauthenticated = async (status: RejectedStatus, size: number, detail: string, body: Buffer | null, answer: Response): Promise<Response> => {
    note(request, { detail });
    const entry = { webhookId: webhook.id, webhookUid: webhook.uid, status, identity: rejectedIdentity(webhook, sent, body), size, detail, remoteAddress: logAddress };
    // Keyed by the trusted address: forged X-Forwarded-For values all share their sender's budget.
    const write = status === 'rejected_auth' ? await recordAuthFailure(entry, address) : await recordUnauthenticated(entry);
    if (write.written) return answer;
    note(request, { budget: write.budget === 'auth_failure' ? 'auth_failure' : 'unauthenticated_writes' });
    return rateLimited(write.retryAfterSeconds);
  };

  const declared = declaredTooLarge(headers, MAX_BODY_BYTES);
  if (declared !== null) {
    return unauthenticated('rejected_too_large', declared, `Content-Length ${declared} exceeds the 256 KB limit (${MAX_BODY_BYTES} bytes)`, null, ingressError('payload_too_large'));
  }

  const authFailed = (detail: string, body: Buffer | null, size: number): Promise<Response> =>
    unauthenticated('rejected_auth', size, detail, body, ingressError('unauthorized'));

  const now = requestNow(headers);
  // The URL as the sender posted to it (Square and Twilio sign it): public base, path and query.
  const publicUrl = ingressUrl(webhook.uid, webhook.authMode, params.token) + new URL(request.url).search;
  const bodyFree = { webhook, headers, pathToken: params.token, body: Buffer.alloc(0), now, url: publicUrl };
  if (webhook.authMode !== 'signature') {
    const result = authenticate(bodyFree);
    if (!result.ok) return authFailed(result.detail, null, declaredSize(headers) ?? 0);
  }

  const read = await readBodyWithLimit(request.body, MAX_BODY_BYTES);
  if (!read.ok) {
    return unauthenticated('rejected_too_large', read.size, `the body exceeds the 256 KB limit (${MAX_BODY_BYTES} bytes)`, null, ingressError('payload_too_large'));
  }
  const body = read.bytes;

  if (webhook.authMode === 'signature') {
    const verify = () => authenticate({ ...bodyFree, body });
    // Verification handshakes (Slack, Zoom, Twitch, Discord, Asana, Notion) get the answer their provider requires.
    const handshake = await answerHandshake({ webhook, headers, body, remoteAddress: logAddress, verify });
    if (handshake) return handshake;
    const result = verify();
    if (!result.ok) return authFailed(result.detail, body, body.length);
  }

  // The delivery budget counts every authenticated request, valid JSON or not.
  const json = parseJsonBody(body);
  const folded = json.ok ? foldedDeliveryLimit(webhook.uid) : null;
  if (!folded) {
    const rate = await consume(getLimiters().delivery, webhook.uid);
    if (!rate.allowed) return rateLimited(rate.retryAfterSeconds);
  }
  if (!json.ok) {
    // Authenticated and counted against the delivery rate just above.
    note(request, { detail: 'the body is not valid UTF-8 JSON' });
    await recordRejected({
      webhookId: webhook.id,
      status: 'rejected_invalid_json',
      identity: rejectedIdentity(webhook, sent, body),
      size: body.length,
      detail: 'the body is not valid UTF-8 JSON',
      remoteAddress: logAddress,
    });
    return ingressError('invalid_json');
  }

  // The ID a verified body names (Stripe's event `id`), for providers without a delivery header.
  const providerBodyId = webhook.authMode === 'signature' && webhook.signatureScheme ? providerBodyDeliveryId(webhook.signatureScheme, json.value) : null;
  const identity = deliveryIdentity({ headers: sent, body, configuredHeader: webhook.deliveryIdHeader, providerId: providerIdFor(webhook, sent), providerBodyId, bodyIdentifies: bodyIdentifiesFor(webhook) });
  const scheme = webhook.signatureScheme ? getScheme(webhook.signatureScheme) : undefined;
  // As the sender sent them: not the address, request id and forwarding headers the server added.
  const stored = redactHeaders(sent, scheme?.signatureHeaders ?? []);
  const signatures = webhook.authMode === 'signature' && scheme ? signatureHeaderValues(headers, scheme.signatureHeaders) : null;
  const { outcome, eventType } = await acceptDelivery(webhook, {
    identity,
    size: body.length,
    json,
    header: (name) => headers.get(name),
    stored,
    signatureHeaders: signatures,
    remoteAddress: logAddress,
    rateLimit: folded ?? undefined,
  });
  if (outcome.limited) return rateLimited(outcome.retryAfterSeconds);
  note(request, { recorded: true, eventType, runs: outcome.runs });
  if (outcome.status === 'duplicate') note(request, { duplicate: true });
  return accepted(identity.deliveryId, webhook.customResponse);
}

