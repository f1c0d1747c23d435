// Intercom: `X-Hub-Signature: sha1=<hex>`, the HMAC-SHA1 of the raw body keyed
// with the app's client secret. No timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Hub-Signature', prefix: 'sha1=', algorithm: 'sha1', encoding: 'hex' });
