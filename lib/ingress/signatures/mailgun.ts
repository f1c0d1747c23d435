// Mailgun: the signature travels in the JSON body, not a header:
// {"signature": {"timestamp", "token", "signature"}, "event-data": …}, where
// signature is the hex HMAC-SHA256 of `${timestamp}${token}` keyed with the
// HTTP webhook signing key. It authenticates the sender, not the event data
// (Mailgun's design); Mailgun sets no window on the timestamp. The body is
// parsed before authentication because that is where the signature is; the
// ingress has already bounded its size.
import { OK, decodeHexDigest, digestsEqual, fail, hmacSha256 } from './shared';
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

export const verify: Verifier = ({ rawBody, secret }) => {
  const parsed = signatureOf(rawBody);
  if (typeof parsed === 'string') return fail(parsed);
  const digest = decodeHexDigest(parsed.signature);
  if (digest === null || !/^\d{1,15}$/.test(parsed.timestamp)) return fail('malformed');
  if (secret === '') return fail('mismatch');
  return digestsEqual(digest, hmacSha256(secret, parsed.timestamp + parsed.token)) ? OK : fail('mismatch');
};
