// GitHub: `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body
// keyed with the webhook secret as UTF-8. GitHub signs no timestamp. The legacy
// SHA-1 `X-Hub-Signature` is deliberately not accepted.
import { OK, decodeHexDigest, digestsEqual, fail, hmacSha256, readHeader } from './shared';
import type { Verifier } from './types';

export const verify: Verifier = ({ rawBody, headers, secret }) => {
  const header = readHeader(headers, 'X-Hub-Signature-256');
  if (header === null) return fail('missing');
  if (!header.startsWith('sha256=')) return fail('malformed');
  const digest = decodeHexDigest(header.slice('sha256='.length));
  if (digest === null) return fail('malformed');
  // An empty key is public knowledge: fail closed rather than accept anyone's signature.
  if (secret === '') return fail('mismatch');
  return digestsEqual(digest, hmacSha256(secret, rawBody)) ? OK : fail('mismatch');
};
