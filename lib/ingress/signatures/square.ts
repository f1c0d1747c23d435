// Square: `x-square-hmacsha256-signature: <base64>`, the HMAC-SHA256 of
// `${notification URL}${body}` keyed with the subscription's signature key.
// The notification URL is the one registered with Square, which is our
// public ingress URL (TRIPLINE_BASE_URL + path); behind a proxy that rewrites
// the host the signature cannot match, which is the point. No timestamp.
import { OK, decodeBase64Digest, digestsEqual, fail, hmacSha256, readHeader } from './shared';
import type { Verifier } from './types';

export const verify: Verifier = ({ rawBody, headers, secret, url }) => {
  const header = readHeader(headers, 'x-square-hmacsha256-signature');
  if (header === null) return fail('missing');
  const digest = decodeBase64Digest(header);
  if (digest === null) return fail('malformed');
  if (secret === '' || !url) return fail('mismatch');
  return digestsEqual(digest, hmacSha256(secret, url, rawBody)) ? OK : fail('mismatch');
};
