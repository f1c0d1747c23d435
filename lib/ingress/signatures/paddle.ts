// Paddle Billing: `Paddle-Signature: ts=<unix>;h1=<hex>[;h1=<hex>…]`, each h1
// the HMAC-SHA256 of `${ts}:${body}` keyed with the whole `pdl_…` secret key
// (pdl_ntfset_… as Paddle issues it today). Paddle's SDKs refuse a timestamp
// more than 5 s old (their MAX_VALID_TIME_DIFFERENCE); Paddle re-signs every
// retry, so the tight window costs nothing but clock accuracy.
import { keyedHeaderVerifier, windowOf } from './keyed-header';
import { schemes } from './registry';

export const verify = keyedHeaderVerifier({ header: 'Paddle-Signature', separator: ';', timestampKey: 'ts', signatureKey: 'h1', join: ':', window: windowOf(schemes.paddle) });
