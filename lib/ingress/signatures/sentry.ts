// Sentry integration platform: `Sentry-Hook-Signature: <hex>`, the HMAC-SHA256
// of the raw body keyed with the integration's client secret. Sentry sends
// `Sentry-Hook-Timestamp` but does not sign it, so it proves nothing and no
// window is applied; `Request-ID` identifies the delivery.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'Sentry-Hook-Signature', algorithm: 'sha256', encoding: 'hex' });
