// X (Twitter) Account Activity: `X-Twitter-Webhooks-Signature:
// sha256=<base64>`, the HMAC-SHA256 of the raw body keyed with the app's
// consumer secret. No timestamp. The challenge-response check (CRC), a GET
// with crc_token at registration and then about hourly, is answered in
// lib/ingress/handshakes.ts, for tokens lib/ingress/challenge-tokens.ts allows.
// https://docs.x.com/x-api/webhooks/quickstart
// https://developer.x.com/en/docs/x-api/enterprise/account-activity-api/guides/securing-webhooks
import { bodyHmacVerifier } from './body-hmac';
import { hmacSha256 } from './shared';

export const verify = bodyHmacVerifier({ header: 'X-Twitter-Webhooks-Signature', prefix: 'sha256=', algorithm: 'sha256', encoding: 'base64' });

// X's tokens are opaque ASCII (its sample uses a UUID; base64 in practice).
// The charset keeps out whitespace, quotes and braces, and the dot: the
// answer to `9999999999.true` would be, in hex, a Stripe-style v1 signature
// of the body `true` at that timestamp, for any webhook sharing the secret.
const CRC_TOKEN = /^[A-Za-z0-9+/=_-]{1,255}$/;

/** A crc_token of the shape X sends, or null. Shape alone is not enough to answer it: see lib/ingress/challenge-tokens.ts. */
export function xCrcTokenShape(value: string | null): string | null {
  return value !== null && CRC_TOKEN.test(value) ? value : null;
}

/** The response_token: `sha256=` and the base64 HMAC-SHA256 of the token under the consumer secret (X's signature of that token as a body). */
export function xCrcResponse(consumerSecret: string, token: string): string {
  return `sha256=${hmacSha256(consumerSecret, token).toString('base64')}`;
}
