// X (Twitter) Account Activity: `X-Twitter-Webhooks-Signature:
// sha256=<base64>`, the HMAC-SHA256 of the raw body keyed with the app's
// consumer secret. No timestamp. The challenge-response check (CRC), a GET
// with crc_token at registration and then about hourly, is answered in
// lib/ingress/handshakes.ts with xCrcResponse below.
// https://docs.x.com/x-api/webhooks/quickstart
// https://developer.x.com/en/docs/x-api/enterprise/account-activity-api/guides/securing-webhooks
import { parseJsonBody } from '@/lib/ingress/json';
import { bodyHmacVerifier } from './body-hmac';
import { hmacSha256 } from './shared';

export const verify = bodyHmacVerifier({ header: 'X-Twitter-Webhooks-Signature', prefix: 'sha256=', algorithm: 'sha256', encoding: 'base64' });

// X's tokens are opaque ASCII (its sample uses a UUID; base64 in practice).
const CRC_TOKEN = /^[A-Za-z0-9+/=_.-]{1,255}$/;

/**
 * The CRC answer is HMAC-SHA256(consumer secret, crc_token), base64: exactly
 * the signature X puts on a delivery whose body is the token. Answering any
 * token would sign any body a caller chooses. So a token is answered only
 * when the ingress's own JSON parser refuses it as a body (`123`, `true`,
 * `"a"` and `{"a":1}` are all refused as tokens): a signature obtained this
 * way can only ever sign a body the ingress rejects as invalid JSON. The
 * charset keeps out whitespace, quotes and braces too, which echoing needs
 * anyway.
 */
export function xCrcToken(value: string | null): string | null {
  if (value === null || !CRC_TOKEN.test(value)) return null;
  return parseJsonBody(Buffer.from(value, 'utf8')).ok ? null : value;
}

/** The response_token for a token xCrcToken accepted. */
export function xCrcResponse(consumerSecret: string, token: string): string {
  return `sha256=${hmacSha256(consumerSecret, token).toString('base64')}`;
}
