import 'server-only';
import type { AuthResult } from '@/lib/ingress/authenticate';
import { requestIdentity, type Identity } from '@/lib/ingress/identity';
import { recordAuthFailure, recordUnauthenticated } from '@/lib/ingress/log-budget';
import { note } from '@/lib/ingress/observe';
import type { BudgetedWrite, MetadataOnlyStatus } from '@/lib/ingress/record';
import { ingressError, rateLimited } from '@/lib/ingress/responses';
import { metaChallenge, metaVerifyToken } from '@/lib/ingress/signatures/meta';
import { graphValidationAnswer } from '@/lib/ingress/signatures/microsoft-graph';
import { oktaAuthorized } from '@/lib/ingress/signatures/okta';
import { hmacSha256 } from '@/lib/ingress/signatures/shared';
import { providerDeliveryId } from '@/lib/ingress/signatures/verify';
import { xCrcResponse } from '@/lib/ingress/signatures/x';
import { answerableCrcToken } from '@/lib/ingress/challenge-tokens';
import { zoomPlainToken } from '@/lib/ingress/signatures/zoom';
import { bytesEqual } from '@/lib/platform/crypto/compare';
import { captureHandshakeSecret, notionTokenPendingDetail, type LiveWebhook } from '@/lib/ingress/live';

// Verification handshakes and challenges: requests some providers send
// before any event (some again later), which fail unless answered exactly as
// the provider requires. They are the only answers of the ingress besides
// "202 {delivery_id}" and the errors; each is logged as Handshake (metadata
// only, never the token) and starts no run.
//
//   Slack     url_verification POST (signed)          200 text/plain <challenge>
//   Zoom      endpoint.url_validation POST (signed)   200 JSON {plainToken, encryptedToken}
//   Twitch    webhook_callback_verification (signed)  200 text/plain <challenge>
//   Discord   PING, interaction type 1 (signed)       200 JSON {"type":1}
//   Asana     X-Hook-Secret POST (unsigned)           200 echoing X-Hook-Secret; the secret is stored
//   Notion    verification_token POST (unsigned)      200; the token is stored and shown to an admin once
//   Dropbox   GET ?challenge= (unsigned)              200 text/plain <challenge>
//   Graph     POST ?validationToken= (unsigned)       200 text/plain <token, URL-decoded, HTML-escaped>
//   Okta      GET X-Okta-Verification-Challenge       200 JSON {"verification"}, only with the secret in Authorization
//   Meta      GET hub.mode=subscribe                  200 text/plain <hub.challenge>, only with the webhook's verify token
//   X         GET ?crc_token= (unsigned, hourly)      200 JSON {"response_token": "sha256=" + base64 HMAC}
//
// Two of these answers are an HMAC, under the very secret that signs the
// provider's deliveries, of a value the caller sends: Zoom's encryptedToken
// (hex HMAC of plainToken) and X's response_token (base64 HMAC of crc_token).
// Zoom signs `v0:<timestamp>:<body>` and X signs the body alone, so an answer
// to a chosen token is a valid signature of a chosen delivery: an oracle.
// - X's check is unsigned, so the token itself must be harmless: it is
//   answered only when it is of the shape X sends and the ingress's own JSON
//   parser (lib/ingress/json.ts) refuses it as a body, so any signature it
//   yields belongs to a body the ingress rejects as invalid JSON. `123`,
//   `true` and `{"a":1}` get 401, never an answer (challenge-tokens.ts).
// - Zoom's check is signed: it is answered only after the request's own
//   signature verified, so only Zoom can ask. As defence in depth the
//   plainToken must also hold no ':' (signatures/zoom.ts), so no answer is
//   ever the signature of a `v0:` message.
// No other challenge computes anything: Meta's verify token is an HMAC
// Tripline shows the admin, under a label of its own and in base64url, and
// never an answer to a caller's value (signatures/meta.ts).
//
// A signed handshake is answered only once its signature verified. The
// unsigned Asana and Notion handshakes carry the secret itself; they are
// taken only while the webhook still waits for its secret, so nobody can
// replace a secret once one is set. Anything that does not look exactly like
// a handshake goes down the normal path (and is verified like any delivery).
// A challenge with a wrong token, or one Tripline will not echo, is a failed
// authentication: 401 with the usual body, under the failed-authentication
// budget of its webhook and client address (then 429), like a wrong signature.
//
// Every echo is restricted to a safe alphabet or escaped (Graph's token holds
// spaces), bounded, and sent with nosniff and no-store. Handshake entries are
// under the webhook's budget of unauthenticated entries
// (lib/ingress/log-budget.ts): past it, the handshake is still answered, but
// without an entry (decision 121: anyone can spend that budget, and a provider
// whose check fails stops delivering). The one exception is a secret just
// stored from an unsigned handshake: its entry is written whatever the budget
// (that happens once per webhook).

const MAX_ECHO = 1024;
// Printable ASCII: what a challenge or secret may be before we echo or store it.
const PRINTABLE = /^[\x21-\x7e]+$/;

const echoable = (value: unknown): value is string => typeof value === 'string' && value.length <= MAX_ECHO && PRINTABLE.test(value);

type Answer = { response: Response; detail: string };

const plain = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store', ...headers } });
const json = (value: unknown) =>
  new Response(JSON.stringify(value), { status: 200, headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } });

function parseObject(body: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function entryOf(webhook: LiveWebhook, headers: Headers, status: MetadataOnlyStatus, size: number, detail: string, remoteAddress: string | null) {
  const sent = webhook.signatureScheme ? providerDeliveryId(webhook.signatureScheme, headers) : null;
  const identity: Identity = sent ? { deliveryId: sent, source: 'provider_header' } : requestIdentity();
  return { webhookId: webhook.id, webhookUid: webhook.uid, status, identity, size, detail, remoteAddress };
}

/**
 * A handshake's entry, under the webhook's unauthenticated budget. An answered handshake is
 * answered whatever the budget (past it, without an entry, and it is no refusal): the answer is
 * what keeps the provider delivering (X's hourly CRC check, Zoom's re-validation), and a flood of
 * other requests that spends the budget must not turn it into a 429 (docs/security.md).
 */
function record(webhook: LiveWebhook, headers: Headers, size: number, detail: string, remoteAddress: string | null, always = false): Promise<BudgetedWrite> {
  return recordUnauthenticated(entryOf(webhook, headers, 'handshake', size, detail, remoteAddress), { always, answered: true });
}

/** The answer to a signed handshake whose signature verified, or null when the body is not one. */
function signedHandshake(webhook: LiveWebhook, headers: Headers, body: Buffer, secret: string): Answer | null {
  switch (webhook.signatureScheme) {
    case 'slack': {
      const event = parseObject(body);
      if (event?.type !== 'url_verification' || !echoable(event.challenge)) return null;
      return { response: plain(event.challenge), detail: 'Slack url_verification answered' };
    }
    case 'zoom': {
      const event = parseObject(body);
      const payload = event?.payload as Record<string, unknown> | undefined;
      const plainToken = zoomPlainToken(payload?.plainToken);
      if (event?.event !== 'endpoint.url_validation' || plainToken === null) return null;
      const encryptedToken = hmacSha256(secret, plainToken).toString('hex');
      return { response: json({ plainToken, encryptedToken }), detail: 'Zoom endpoint.url_validation answered' };
    }
    case 'twitch': {
      if (headers.get('twitch-eventsub-message-type') !== 'webhook_callback_verification') return null;
      const event = parseObject(body);
      if (!echoable(event?.challenge)) return null;
      return { response: plain(event.challenge), detail: 'Twitch webhook_callback_verification answered' };
    }
    case 'discord':
      if (parseObject(body)?.type !== 1) return null;
      return { response: json({ type: 1 }), detail: 'Discord PING answered' };
    default:
      return null;
  }
}

/** The secret an unsigned handshake carries, or null when the request is not one. */
function unsignedHandshakeSecret(webhook: LiveWebhook, headers: Headers, body: Buffer): string | null {
  if (webhook.credential !== null) return null;
  if (webhook.signatureScheme === 'asana') {
    const secret = headers.get('x-hook-secret');
    return echoable(secret) ? secret : null;
  }
  if (webhook.signatureScheme === 'notion' && !headers.has('x-notion-signature')) {
    const token = parseObject(body)?.verification_token;
    return echoable(token) ? token : null;
  }
  return null;
}

/**
 * Answers a POST handshake, or returns null for the normal path. `verify`
 * authenticates the request like any delivery; it is called only for bodies
 * that are signed handshakes.
 */
export async function answerHandshake(input: {
  webhook: LiveWebhook;
  headers: Headers;
  body: Buffer;
  remoteAddress: string | null;
  verify: () => AuthResult;
}): Promise<Response | null> {
  const { webhook, headers, body, remoteAddress } = input;
  if (webhook.authMode !== 'signature' || !webhook.signatureScheme) return null;

  const captured = unsignedHandshakeSecret(webhook, headers, body);
  if (captured !== null) {
    // Stored before answering: Asana signs its first event right after our 200.
    if (!(await captureHandshakeSecret(webhook.id, captured))) return null;
    const asana = webhook.signatureScheme === 'asana';
    await record(webhook, headers, body.length, asana ? 'Asana handshake: X-Hook-Secret stored as the provider secret' : notionTokenPendingDetail(captured), remoteAddress, true);
    return asana ? new Response(null, { status: 200, headers: { 'X-Hook-Secret': captured, 'Cache-Control': 'no-store' } }) : json({});
  }

  if (webhook.credential === null) return null;
  const answer = signedHandshake(webhook, headers, body, webhook.credential);
  if (answer === null || !input.verify().ok) return null;
  await record(webhook, headers, body.length, answer.detail, remoteAddress);
  return answer.response;
}

// What a challenge of each scheme may be echoed as: letters, digits and a few marks (Okta's is base64url).
const TOKEN = /^[A-Za-z0-9._~+/=-]{1,256}$/;

/** A challenge's answer, or why it is refused (a failed authentication). */
type Challenge = Answer | { refused: string };

const WAITING = 'the webhook is waiting for its provider secret';

/**
 * The request as a challenge of its webhook's scheme, or null when it is
 * none (then the normal path answers it: 405 for a GET). Only the scheme's
 * own challenge is recognised: a Meta-shaped GET on a GitHub webhook is no
 * challenge.
 */
function challengeOf(webhook: LiveWebhook, request: Request): Challenge | null {
  const query = new URL(request.url).searchParams;
  const secret = webhook.credential;
  switch (webhook.signatureScheme) {
    case 'dropbox': {
      const challenge = query.get('challenge');
      if (request.method !== 'GET' || !echoable(challenge)) return null;
      return { response: plain(challenge), detail: 'Dropbox GET challenge answered' };
    }
    case 'microsoft-graph': {
      if (request.method !== 'POST' || !query.has('validationToken')) return null;
      // URLSearchParams has already URL-decoded it, as Graph requires.
      const answer = graphValidationAnswer(query.get('validationToken'));
      if (answer === null) return { refused: 'Microsoft Graph validationToken refused: empty, over 1,024 characters, or with a control character' };
      return { response: plain(answer), detail: 'Microsoft Graph validation answered' };
    }
    case 'okta': {
      const challenge = request.headers.get('x-okta-verification-challenge');
      if (request.method !== 'GET' || challenge === null) return null;
      if (secret === null) return { refused: WAITING };
      // Okta sends the hook's authentication header with its verification too: without it, no answer.
      if (!oktaAuthorized(request.headers, secret).ok) return { refused: 'Okta verification without the secret in Authorization' };
      if (!TOKEN.test(challenge)) return { refused: 'Okta verification challenge refused: not a token of letters, digits and - _' };
      return { response: json({ verification: challenge }), detail: 'Okta verification answered' };
    }
    case 'meta': {
      if (request.method !== 'GET' || query.get('hub.mode') !== 'subscribe') return null;
      if (secret === null) return { refused: WAITING };
      if (!bytesEqual(query.get('hub.verify_token') ?? '', metaVerifyToken(secret, webhook.uid))) return { refused: 'Meta verification with a wrong hub.verify_token' };
      const challenge = metaChallenge(query.get('hub.challenge'));
      if (challenge === null) return { refused: 'Meta hub.challenge refused: not a token of letters and digits' };
      return { response: plain(challenge), detail: 'Meta verification answered' };
    }
    case 'x': {
      if (request.method !== 'GET' || !query.has('crc_token')) return null;
      if (secret === null) return { refused: WAITING };
      const token = answerableCrcToken(query.get('crc_token'));
      // Its answer would be a signature of the token as a body: see the header comment.
      if (token === null) return { refused: 'X crc_token refused: not of the shape X sends (a token that parses as JSON is never answered)' };
      return { response: json({ response_token: xCrcResponse(secret, token) }), detail: 'X challenge-response check answered' };
    }
    default:
      return null;
  }
}

/**
 * Answers a challenge that comes before the body is read (Dropbox's, Okta's,
 * Meta's and X's GET, Graph's validation POST), or returns null for the
 * normal path. `address` is the client address the server entry resolved.
 */
export async function answerChallenge(webhook: LiveWebhook, request: Request, address: string): Promise<Response | null> {
  if (webhook.authMode !== 'signature') return null;
  const challenge = challengeOf(webhook, request);
  if (challenge === null) return null;
  const remoteAddress = address === 'unknown' ? null : address;
  if ('refused' in challenge) {
    note(request, { detail: challenge.refused });
    const write = await recordAuthFailure(entryOf(webhook, request.headers, 'rejected_auth', 0, challenge.refused, remoteAddress), address);
    if (write.written) return ingressError('unauthorized');
    note(request, { budget: write.budget === 'auth_failure' ? 'auth_failure' : 'unauthenticated_writes' });
    return rateLimited(write.retryAfterSeconds);
  }
  // Answered past the budget too (without an entry): no refusal to count or log.
  await record(webhook, request.headers, 0, challenge.detail, remoteAddress);
  return challenge.response;
}
