// Vercel: `x-vercel-signature: <hex>`, the HMAC-SHA1 of the raw body keyed with
// the webhook's secret (Vercel's documented algorithm; SHA-1 is still sound as
// an HMAC). No timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'x-vercel-signature', algorithm: 'sha1', encoding: 'hex' });
