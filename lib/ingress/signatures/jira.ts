// Jira admin webhooks with a secret (WebSub style): `X-Hub-Signature:
// sha256=<hex>`, the HMAC-SHA256 of the raw body keyed with the secret set on
// the webhook. No timestamp; `X-Atlassian-Webhook-Identifier` identifies the delivery.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: 'X-Hub-Signature', prefix: 'sha256=', algorithm: 'sha256', encoding: 'hex' });
