// Notion: `X-Notion-Signature: sha256=<hex>`, the HMAC-SHA256 of the raw body
// keyed with the subscription's verification token, which Notion sends once,
// unsigned, before any event (see lib/ingress/handshakes.ts). No timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Notion-Signature', prefix: 'sha256=', algorithm: 'sha256', encoding: 'hex' });
