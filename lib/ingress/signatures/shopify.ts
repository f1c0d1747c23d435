// Shopify: `X-Shopify-Hmac-Sha256: <base64>`, the HMAC-SHA256 of the raw body
// keyed with the app's client secret (or the store's webhook signing key).
// Shopify signs no timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Shopify-Hmac-Sha256', algorithm: 'sha256', encoding: 'base64' });
