// Shopify: `X-Shopify-Hmac-Sha256: <base64>`, the HMAC-SHA256 of the raw body
// keyed with the app's client secret (or the store's webhook signing key).
// Shopify signs no timestamp.
import { OK, decodeBase64Digest, digestsEqual, fail, hmacSha256, readHeader } from './shared';
import type { Verifier } from './types';

export const verify: Verifier = ({ rawBody, headers, secret }) => {
  const header = readHeader(headers, 'X-Shopify-Hmac-Sha256');
  if (header === null) return fail('missing');
  const digest = decodeBase64Digest(header);
  if (digest === null) return fail('malformed');
  if (secret === '') return fail('mismatch');
  return digestsEqual(digest, hmacSha256(secret, rawBody)) ? OK : fail('mismatch');
};
