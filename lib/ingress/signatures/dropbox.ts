// Dropbox: `X-Dropbox-Signature: <hex>`, the HMAC-SHA256 of the raw body keyed
// with the app secret. No timestamp. Dropbox's GET challenge is answered in
// lib/ingress/handshakes.ts.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Dropbox-Signature', algorithm: 'sha256', encoding: 'hex' });
