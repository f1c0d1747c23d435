// Mailgun: the signature travels in the JSON body, not a header:
// {"signature": {"timestamp", "token", "signature"}, "event-data": …}, where
// signature is the hex HMAC-SHA256 of `${timestamp}${token}` keyed with the
// HTTP webhook signing key. It authenticates the sender, not the event data
// (Mailgun's design); Mailgun sets no window on the timestamp (Tripline sets
// one: MAILGUN_WINDOW). The body is
// parsed before authentication because that is where the signature is; the
// ingress has already bounded its size.
import { OK, decodeHexDigest, digestsEqual, fail, hmacSha256, withinWindow } from './shared';
import type { Verifier } from './types';

type Signature = { timestamp: string; token: string; signature: string };

function signatureOf(rawBody: Buffer): Signature | 'missing' | 'malformed' {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return 'missing';
  }
  if (typeof body !== 'object' || body === null || !('signature' in body)) return 'missing';
  const signature: unknown = body.signature;
  if (typeof signature !== 'object' || signature === null) return 'malformed';
  const { timestamp, token, signature: value } = signature as Record<string, unknown>;
  if (typeof timestamp !== 'string' || typeof token !== 'string' || typeof value !== 'string') return 'malformed';
  return { timestamp, token, signature: value };
}

/**
 * How old a signature may be. Mailgun sets no window, but its signature covers neither the event
 * nor the request, so a signature copied from any logged delivery (every viewer of the log and
 * every run sees the body) would verify on a forged event for ever. Its token is the delivery's
 * identity (the registry's deliveryIdBodyField), so a reused signature is a Duplicate that starts
 * nothing; past this age it is refused, well within the log's retention, which deduplication
 * covers. A day holds Mailgun's retries (over about 8 hours).
 */
export const MAILGUN_WINDOW = { toleranceSeconds: 86_400, direction: 'past' as const };

export const verify: Verifier = ({ rawBody, secret, now }) => {
  const parsed = signatureOf(rawBody);
  if (typeof parsed === 'string') return fail(parsed);
  const digest = decodeHexDigest(parsed.signature);
  if (digest === null || !/^\d{1,15}$/.test(parsed.timestamp)) return fail('malformed');
  if (secret === '') return fail('mismatch');
  if (!digestsEqual(digest, hmacSha256(secret, parsed.timestamp + parsed.token))) return fail('mismatch');
  // Checked after the signature, so 'stale' always describes a genuine but replayed signature.
  return withinWindow(MAILGUN_WINDOW, Number(parsed.timestamp), now) ? OK : fail('stale');
};
