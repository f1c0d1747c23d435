import { createHash } from 'node:crypto';
import { timeOrderedId } from '@/lib/platform/crypto/random';
import { MAX_DELIVERY_ID_LENGTH } from '@/lib/ingress/limits';

// Delivery identity (docs/decisions/0028-delivery-identity.md), in order of preference:
//   (a) the header named by the webhook's Delivery ID header setting,
//   (b) the provider's delivery header, for signature webhooks,
//   (b') for a provider without one, the ID its verified body names (Stripe's
//        event `id`), for accepted deliveries of signature webhooks,
//   (c) X-Service-Delivery-Id,
//   (d) a hash of the body.
// A sender ID is used verbatim when it is 1 to 200 printable ASCII
// characters (after trimming spaces). An over-long or odd ID (control or
// non-ASCII characters) is not truncated, which could merge distinct IDs:
// it is replaced by "id-sha256:" and the SHA-256 of its bytes, a stable,
// bounded identity that still deduplicates retries. An empty header counts
// as absent.

export type IdentitySource = 'configured_header' | 'provider_header' | 'provider_body' | 'service_header' | 'body_hash' | 'request_id';

export type Identity = { deliveryId: string; source: IdentitySource };

const PRINTABLE_ASCII = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export function normaliseSenderId(raw: string): string | null {
  const value = raw.trim();
  if (value === '') return null;
  if (value.length <= MAX_DELIVERY_ID_LENGTH && PRINTABLE_ASCII.test(value)) return value;
  return `id-sha256:${createHash('sha256').update(value, 'utf8').digest('hex')}`;
}

/** The identity of a request that is logged without one of its own (a rejection or a handshake): made up here, never deduplicated. */
export function requestIdentity(): Identity {
  return { deliveryId: timeOrderedId('req_', 16), source: 'request_id' };
}

export function bodyHashId(body: Buffer): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

export function deliveryIdentity(input: {
  headers: Headers;
  body: Buffer;
  configuredHeader: string | null;
  providerId: string | null;
  /** The ID the verified body names (signatures/verify.ts, providerBodyDeliveryId); only for accepted deliveries. */
  providerBodyId?: string | null;
  /** false where equal bodies may be different deliveries (signatures/verify.ts, bodyIdentifies): then a request ID. */
  bodyIdentifies?: boolean;
}): Identity {
  const candidates: Array<[string | null, IdentitySource]> = [
    [input.configuredHeader ? input.headers.get(input.configuredHeader) : null, 'configured_header'],
    [input.providerId, 'provider_header'],
    [input.providerBodyId ?? null, 'provider_body'],
    [input.headers.get('x-service-delivery-id'), 'service_header'],
  ];
  for (const [raw, source] of candidates) {
    const id = raw === null ? null : normaliseSenderId(raw);
    if (id) return { deliveryId: id, source };
  }
  if (input.bodyIdentifies === false) return requestIdentity();
  return { deliveryId: bodyHashId(input.body), source: 'body_hash' };
}
