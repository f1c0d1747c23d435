// Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…][,v0=<hex>]`, each v1
// the HMAC-SHA256 of `${t}.${body}` keyed with the whole endpoint secret,
// `whsec_` prefix included, as UTF-8 bytes. Several v1 entries appear while a
// secret is rolled; one match suffices. v0 is a test-mode legacy scheme that
// Stripe's libraries ignore, and so do we.
//
// Tolerance is one-sided, as in Stripe's libraries (stripe-node rejects only
// when now - t > tolerance; stripe-python, -go, -dotnet likewise): a delivery
// older than 300 s is stale, one stamped ahead of our clock is accepted. Only
// Stripe can produce a valid t, so a future t means clock skew, and rejecting
// it would drop every event while our clock runs slow.
import { keyedHeaderVerifier, windowOf } from './keyed-header';
import { schemes } from './registry';

export const verify = keyedHeaderVerifier({ header: 'Stripe-Signature', separator: ',', timestampKey: 't', signatureKey: 'v1', join: '.', window: windowOf(schemes.stripe) });
