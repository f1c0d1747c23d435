// Twitch EventSub: `Twitch-Eventsub-Message-Signature: sha256=<hex>`, the
// HMAC-SHA256 of `${message id}${message timestamp}${body}` keyed with the
// subscription's secret. Twitch tells receivers to reject messages whose
// RFC 3339 timestamp is more than 10 minutes old. Its
// webhook_callback_verification message is signed the same way and answered
// in lib/ingress/handshakes.ts.
import { windowOf } from './keyed-header';
import { schemes } from './registry';
import { OK, decodeHexDigest, digestsEqual, fail, headerBytes, hmacSha256, parseRfc3339Seconds, readHeader, withinWindow } from './shared';
import type { Verifier } from './types';

const WINDOW = windowOf(schemes.twitch);

export const verify: Verifier = ({ rawBody, headers, secret, now }) => {
  const id = readHeader(headers, 'Twitch-Eventsub-Message-Id');
  const timestamp = readHeader(headers, 'Twitch-Eventsub-Message-Timestamp');
  const signature = readHeader(headers, 'Twitch-Eventsub-Message-Signature');
  if (id === null || timestamp === null || signature === null) return fail('missing');
  const sentAt = parseRfc3339Seconds(timestamp);
  if (sentAt === null || !signature.startsWith('sha256=')) return fail('malformed');
  const digest = decodeHexDigest(signature.slice('sha256='.length));
  if (digest === null) return fail('malformed');

  if (secret === '') return fail('mismatch');
  if (!digestsEqual(digest, hmacSha256(secret, headerBytes(id + timestamp), rawBody))) return fail('mismatch');
  return withinWindow(WINDOW, sentAt, now) ? OK : fail('stale');
};
