// Gitea and Forgejo: `X-Gitea-Signature` (Forgejo adds `X-Forgejo-Signature`,
// same value), the hex HMAC-SHA256 of the raw body keyed with the webhook
// secret, without prefix. Both also send GitHub-style `X-Hub-Signature(-256)`
// copies; the native header is the one checked. No timestamp.
import { bodyHmacVerifier } from './body-hmac';

export const verify = bodyHmacVerifier({ header: ['X-Forgejo-Signature', 'X-Gitea-Signature'], algorithm: 'sha256', encoding: 'hex' });
