import 'server-only';
import type { AuthResult } from '@/lib/ingress/authenticate';
import { requestIdentity, type Identity } from '@/lib/ingress/identity';
import { recordUnauthenticated } from '@/lib/ingress/log-budget';
import type { BudgetedWrite } from '@/lib/ingress/record';
import { rateLimited } from '@/lib/ingress/responses';
import { hmacSha256 } from '@/lib/ingress/signatures/shared';
import { providerDeliveryId } from '@/lib/ingress/signatures/verify';
import { captureHandshakeSecret, notionTokenPendingDetail, type LiveWebhook } from '@/lib/ingress/live';

// Verification handshakes: requests some providers send before any event,
// which fail unless answered exactly as the provider requires. They are the
// only answers of the ingress besides "202 {delivery_id}" and the errors; each
// is logged as Handshake (metadata only) and starts no run.
//
//   Slack    url_verification POST (signed)          200 text/plain <challenge>
//   Zoom     endpoint.url_validation POST (signed)   200 JSON {plainToken, encryptedToken}
//   Twitch   webhook_callback_verification (signed)  200 text/plain <challenge>
//   Discord  PING, interaction type 1 (signed)       200 JSON {"type":1}
//   Asana    X-Hook-Secret POST (unsigned)           200 echoing X-Hook-Secret; the secret is stored
//   Notion   verification_token POST (unsigned)      200; the token is stored and shown to an admin once
//   Dropbox  GET ?challenge= (unsigned)              200 text/plain, nosniff, <challenge>
//
// A signed handshake is answered only once its signature verified: Zoom's
// answer is an HMAC of a caller-chosen token under the webhook's secret, so
// answering unsigned requests would sign anything for anyone. The unsigned
// Asana and Notion handshakes carry the secret itself; they are taken only
// while the webhook still waits for its secret, so nobody can replace a
// secret once one is set. Anything that does not look exactly like a
// handshake goes down the normal path (and is verified like any delivery).
//
// Handshake entries are under the webhook's budget of unauthenticated
// entries (lib/ingress/log-budget.ts): past it, 429 instead of the answer.
// The one exception is a secret just stored from an unsigned handshake: that
// happens once per webhook, and refusing the answer would leave the provider
// without a working subscription.

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

async function record(webhook: LiveWebhook, headers: Headers, size: number, detail: string, remoteAddress: string | null, always = false): Promise<BudgetedWrite> {
  const sent = webhook.signatureScheme ? providerDeliveryId(webhook.signatureScheme, headers) : null;
  const identity: Identity = sent ? { deliveryId: sent, source: 'provider_header' } : requestIdentity();
  return recordUnauthenticated({ webhookId: webhook.id, webhookUid: webhook.uid, status: 'handshake', identity, size, detail, remoteAddress }, { always });
}

/** The handshake's answer when its entry was written, else 429. */
const answerOr429 = (write: BudgetedWrite, answer: Response) => (write.written ? answer : rateLimited(write.retryAfterSeconds));

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
      if (event?.event !== 'endpoint.url_validation' || !echoable(payload?.plainToken)) return null;
      const encryptedToken = hmacSha256(secret, payload.plainToken).toString('hex');
      return { response: json({ plainToken: payload.plainToken, encryptedToken }), detail: 'Zoom endpoint.url_validation answered' };
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
  return answerOr429(await record(webhook, headers, body.length, answer.detail, remoteAddress), answer.response);
}

/** Dropbox's GET challenge, or null: any other non-POST request gets the usual 405. */
export async function answerChallenge(webhook: LiveWebhook, request: Request, remoteAddress: string | null): Promise<Response | null> {
  if (request.method !== 'GET' || webhook.authMode !== 'signature' || webhook.signatureScheme !== 'dropbox') return null;
  const challenge = new URL(request.url).searchParams.get('challenge');
  if (!echoable(challenge)) return null;
  return answerOr429(await record(webhook, request.headers, 0, 'Dropbox GET challenge answered', remoteAddress), plain(challenge));
}
