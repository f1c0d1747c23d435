// GitHub: `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body
// keyed with the webhook secret as UTF-8. GitHub signs no timestamp. The legacy
// SHA-1 `X-Hub-Signature` is deliberately not accepted.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Hub-Signature-256', prefix: 'sha256=', algorithm: 'sha256', encoding: 'hex' });
