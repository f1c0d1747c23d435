// Typeform: `Typeform-Signature: sha256=<base64>`, the HMAC-SHA256 of the raw
// body keyed with the secret you set on the webhook. No timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'Typeform-Signature', prefix: 'sha256=', algorithm: 'sha256', encoding: 'base64' });
