// GitLab: no signature. `X-Gitlab-Token` carries the webhook's secret token
// verbatim, so the check is exact equality with the stored secret: no
// trimming or case folding, compared in constant time.
import { bytesEqual } from '@/lib/platform/crypto/compare';
import { OK, fail, headerBytes, readHeader } from './shared';
import type { Verifier } from './types';

export const verify: Verifier = ({ headers, secret }) => {
  const token = readHeader(headers, 'X-Gitlab-Token');
  if (token === null) return fail('missing');
  // GitLab sends the token's UTF-8 bytes; compare bytes with bytes so non-ASCII tokens work.
  if (secret === '') return fail('mismatch');
  return bytesEqual(headerBytes(token), Buffer.from(secret, 'utf8')) ? OK : fail('mismatch');
};
