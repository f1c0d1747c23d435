// PagerDuty Webhooks v3: `X-PagerDuty-Signature: v1=<hex>[,v1=<hex>…]`, each
// the HMAC-SHA256 of the raw body keyed with the subscription's secret as
// UTF-8 (not base64-decoded, although it looks like base64). Several entries
// appear while a secret rotates; one match suffices. No timestamp.
import { OK, anyDigestEqual, decodeHexDigest, fail, hmacSha256, readHeader } from './shared';
import type { Verifier } from './types';

export const verify: Verifier = ({ rawBody, headers, secret }) => {
  const header = readHeader(headers, 'X-PagerDuty-Signature');
  if (header === null) return fail('missing');
  const candidates = header
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('v1='))
    .map((entry) => decodeHexDigest(entry.slice('v1='.length)))
    .filter((digest) => digest !== null);
  if (candidates.length === 0) return fail('malformed');
  if (secret === '') return fail('mismatch');
  return anyDigestEqual(candidates, hmacSha256(secret, rawBody)) ? OK : fail('mismatch');
};
