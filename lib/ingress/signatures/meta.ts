// Meta (WhatsApp Business, Messenger, Instagram): `X-Hub-Signature-256:
// sha256=<hex>`, the HMAC-SHA256 of the raw body keyed with the app secret.
// No timestamp. Meta's verification GET (hub.mode=subscribe) is answered in
// lib/ingress/handshakes.ts when its hub.verify_token is the webhook's verify
// token, derived here.
// https://developers.facebook.com/docs/graph-api/webhooks/getting-started
import { createHmac } from 'node:crypto';
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Hub-Signature-256', prefix: 'sha256=', algorithm: 'sha256', encoding: 'hex' });

/**
 * The verify token the admin types into Meta's dashboard: an HMAC of the
 * webhook's UID under its app secret, so no column holds it and two webhooks
 * sharing a team secret still have different tokens. It is base64url and
 * under a label of its own, so it is never a signature Meta would send: a
 * delivery signature is hex and covers a JSON body, and the label with its
 * NUL byte is no JSON body.
 */
export function metaVerifyToken(appSecret: string, uid: string): string {
  return createHmac('sha256', appSecret).update(`tripline meta verify token\0${uid}`).digest('base64url');
}

// Meta documents hub.challenge as "an int"; anything outside these characters is refused, never echoed.
const CHALLENGE = /^[A-Za-z0-9._~-]{1,256}$/;

/** A hub.challenge safe to echo as text/plain, or null. */
export function metaChallenge(value: string | null): string | null {
  return value !== null && CHALLENGE.test(value) ? value : null;
}
