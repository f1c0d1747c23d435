// Slack and Zoom sign alike: `v0=<hex>`, the HMAC-SHA256 of
// `v0:${timestamp}:${body}`, the timestamp (unix seconds) in its own header.
import { OK, decodeHexDigest, digestsEqual, fail, hmacSha256, parseUnixSeconds, readHeader, withinWindow, type TimestampRule } from './shared';
import type { Verifier } from './types';

export function v0Verifier(options: { signatureHeader: string; timestampHeader: string; window: TimestampRule }): Verifier {
  return ({ rawBody, headers, secret, now }) => {
    const signature = readHeader(headers, options.signatureHeader);
    const timestamp = readHeader(headers, options.timestampHeader);
    if (signature === null || timestamp === null) return fail('missing');

    const sentAt = parseUnixSeconds(timestamp);
    if (sentAt === null || !signature.startsWith('v0=')) return fail('malformed');
    const digest = decodeHexDigest(signature.slice('v0='.length));
    if (digest === null) return fail('malformed');

    if (secret === '') return fail('mismatch');
    if (!digestsEqual(digest, hmacSha256(secret, `v0:${timestamp}:`, rawBody))) return fail('mismatch');
    return withinWindow(options.window, sentAt, now) ? OK : fail('stale');
  };
}
