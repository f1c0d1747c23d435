// Asana: `X-Hook-Signature: <hex>`, the HMAC-SHA256 of the raw body keyed with
// the X-Hook-Secret that Asana sent in the webhook's handshake (stored as the
// provider secret by lib/ingress/handshakes.ts). No timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Hook-Signature', algorithm: 'sha256', encoding: 'hex' });
