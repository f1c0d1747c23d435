// Linear: `Linear-Signature: <hex>`, the HMAC-SHA256 of the raw body keyed with
// the webhook's signing secret. The signed timestamp is `webhookTimestamp`
// (unix milliseconds) inside the JSON body, not the unsigned Linear-Timestamp
// header; Linear's SDK rejects it more than 60 s from now, either direction.
import { schemes } from './registry';
import { OK, decodeHexDigest, digestsEqual, fail, hmacSha256, readHeader } from './shared';
import type { Verifier } from './types';

const TOLERANCE_MS = schemes.linear.timestampToleranceSeconds * 1000;

/** `webhookTimestamp` from the body, or null when the body is not a JSON object carrying a numeric one. */
function webhookTimestamp(rawBody: Buffer): number | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const value: unknown = (body as Record<string, unknown>).webhookTimestamp;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export const verify: Verifier = ({ rawBody, headers, secret, now }) => {
  const header = readHeader(headers, 'Linear-Signature');
  if (header === null) return fail('missing');
  const digest = decodeHexDigest(header);
  if (digest === null) return fail('malformed');

  if (secret === '') return fail('mismatch');
  if (!digestsEqual(digest, hmacSha256(secret, rawBody))) return fail('mismatch');

  // Parsed only after the signature matched, so unauthenticated bodies never reach JSON.parse.
  const sentAtMs = webhookTimestamp(rawBody);
  if (sentAtMs === null) return fail('malformed');
  if (Math.abs(now * 1000 - sentAtMs) > TOLERANCE_MS) return fail('stale');
  return OK;
};
