// Okta event hooks: no signature. The hook's "Authentication field" names a
// header and its "Authentication secret" is sent in it verbatim on every
// delivery and on the one-time verification GET. Tripline fixes the field to
// `Authorization` (Okta's own examples use it) and compares the value with
// the webhook's secret exactly, in constant time. The verification GET is
// answered in lib/ingress/handshakes.ts, with the same check first.
// https://developer.okta.com/docs/concepts/event-hooks/
// https://support.okta.com/help/s/article/Unable-to-verify-event-hook-Hook-hook-name-execution-failed
import { bytesEqual } from '@/lib/platform/crypto/compare';
import { OK, fail, headerBytes, readHeader } from './shared';
import type { Verifier, VerifyResult } from './types';

export const OKTA_AUTH_HEADER = 'Authorization';

/** Whether the request's Authorization header carries exactly the hook's secret. */
export function oktaAuthorized(headers: Headers, secret: string): VerifyResult {
  const value = readHeader(headers, OKTA_AUTH_HEADER);
  if (value === null) return fail('missing');
  if (secret === '') return fail('mismatch');
  return bytesEqual(headerBytes(value), Buffer.from(secret, 'utf8')) ? OK : fail('mismatch');
}

export const verify: Verifier = ({ headers, secret }) => oktaAuthorized(headers, secret);
