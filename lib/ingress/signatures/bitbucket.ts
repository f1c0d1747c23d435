// Bitbucket (Cloud and Data Center): `X-Hub-Signature: sha256=<hex>`, the
// HMAC-SHA256 of the raw body keyed with the webhook secret. No timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Hub-Signature', prefix: 'sha256=', algorithm: 'sha256', encoding: 'hex' });
