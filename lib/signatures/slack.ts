// Slack signing secrets: `X-Slack-Signature: v0=<hex>`, the HMAC-SHA256 of
// `v0:${X-Slack-Request-Timestamp}:${body}` keyed with the app's signing
// secret. Slack tells receivers to reject a timestamp more than five minutes
// from now; its SDKs compare the absolute difference, so both directions.
import { schemes } from './registry';
import { OK, decodeHexDigest, digestsEqual, fail, hmacSha256, parseUnixSeconds, readHeader } from './shared';
import type { Verifier } from './types';

const TOLERANCE_SECONDS = schemes.slack.timestampToleranceSeconds;

export const verify: Verifier = ({ rawBody, headers, secret, now }) => {
  const signature = readHeader(headers, 'X-Slack-Signature');
  const timestamp = readHeader(headers, 'X-Slack-Request-Timestamp');
  if (signature === null || timestamp === null) return fail('missing');

  const sentAt = parseUnixSeconds(timestamp);
  if (sentAt === null || !signature.startsWith('v0=')) return fail('malformed');
  const digest = decodeHexDigest(signature.slice('v0='.length));
  if (digest === null) return fail('malformed');

  if (secret === '') return fail('mismatch');
  if (!digestsEqual(digest, hmacSha256(secret, `v0:${timestamp}:`, rawBody))) return fail('mismatch');

  if (Math.abs(now - sentAt) > TOLERANCE_SECONDS) return fail('stale');
  return OK;
};
