// The ingress entry point: one verifier per registry scheme. The Record type
// makes a scheme added to the registry without a verifier a compile error.
import { verify as github } from './github';
import { verify as gitlab } from './gitlab';
import { verify as linear } from './linear';
import { schemes, type SchemeId } from './registry';
import { fail } from './shared';
import { verify as shopify } from './shopify';
import { verify as slack } from './slack';
import { verify as standardWebhooks } from './standard-webhooks';
import { verify as stripe } from './stripe';
import type { Verifier, VerifyInput, VerifyResult } from './types';

export type { Verifier, VerifyFailure, VerifyInput, VerifyResult } from './types';

const verifiers: Record<SchemeId, Verifier> = {
  'standard-webhooks': standardWebhooks,
  github,
  stripe,
  slack,
  linear,
  shopify,
  gitlab,
};

export function verifySignature(scheme: SchemeId, input: VerifyInput): VerifyResult {
  // Schemes come from stored rows: an unknown one (or 'toString') must not reach a prototype method.
  if (!Object.hasOwn(verifiers, scheme)) return fail('mismatch');
  try {
    return verifiers[scheme](input);
  } catch {
    // The verifiers are written not to throw; should one ever do so on some
    // unforeseen input, the request is still refused rather than crashing the ingress.
    return fail('malformed');
  }
}

/** The provider's own delivery ID for dedup, or null when the scheme has none or the header is absent. */
export function providerDeliveryId(scheme: SchemeId, headers: Headers): string | null {
  const name = schemes[scheme].deliveryIdHeader;
  if (name === null) return null;
  const value = headers.get(name) || (scheme === 'standard-webhooks' ? headers.get('svix-id') : null);
  return value || null;
}
