// Calendly: `Calendly-Webhook-Signature: t=<unix>,v1=<hex>`, the HMAC-SHA256 of
// `${t}.${body}` keyed with the subscription's signing key: Stripe's shape.
// Calendly's documentation rejects a timestamp older than three minutes
// (one-sided, like Stripe).
import { keyedHeaderVerifier, windowOf } from './keyed-header';
import { schemes } from './registry';

export const verify = keyedHeaderVerifier({ header: 'Calendly-Webhook-Signature', separator: ',', timestampKey: 't', signatureKey: 'v1', join: '.', window: windowOf(schemes.calendly) });
