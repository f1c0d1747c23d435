// Zendesk: `X-Zendesk-Webhook-Signature: <base64>`, the HMAC-SHA256 of
// `${X-Zendesk-Webhook-Signature-Timestamp}${body}` keyed with the webhook's
// signing secret as UTF-8. The timestamp is signed but Zendesk publishes no
// window, so none is applied; X-Zendesk-Webhook-Invocation-Id dedups retries.
import { OK, decodeBase64Digest, digestsEqual, fail, headerBytes, hmacSha256, readHeader } from './shared';
import type { Verifier } from './types';

export const verify: Verifier = ({ rawBody, headers, secret }) => {
  const signature = readHeader(headers, 'X-Zendesk-Webhook-Signature');
  const timestamp = readHeader(headers, 'X-Zendesk-Webhook-Signature-Timestamp');
  if (signature === null || timestamp === null) return fail('missing');
  const digest = decodeBase64Digest(signature);
  if (digest === null) return fail('malformed');
  if (secret === '') return fail('mismatch');
  return digestsEqual(digest, hmacSha256(secret, headerBytes(timestamp), rawBody)) ? OK : fail('mismatch');
};
