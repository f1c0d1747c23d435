import 'server-only';
import type { Tx } from '@/lib/platform/db';
import { encryptSecret } from '@/lib/platform/crypto/encryption';
import { AppError } from '@/lib/platform/http/errors';
import { isUrlSafe } from '@/lib/domain/secrets/schemas';
import { readSecretValue } from '@/lib/domain/secrets/service';
import type { AuthMode } from '@/lib/domain/webhooks/schemas';

// A webhook's applied credential: shared by the management rules
// (lib/domain/webhooks/service.ts) and the ingress's handshake capture
// (live.ts). It lives in the ingress wing, which the domains may import and
// which imports no webhook management code.

/** The encryption context of a webhook's applied credential. */
export const credentialContext = (uid: string) => `webhook-credential:${uid}`;

/**
 * Applies the webhook's definition: resolves its team secret and stores the
 * value as the webhook's credential. On a dashboard factory a missing team
 * secret leaves the webhook awaiting its secret (every request is then
 * refused as auth failure); where definitions live in files it is an error
 * (docs/definitions.md, Applying a set of files), as is a url_token secret
 * that is not URL-safe.
 */
export async function applyCredential(
  tx: Tx,
  factoryId: string,
  row: { id: string; uid: string; authMode: AuthMode; secretName: string },
  requireSecret = false,
) {
  const secret = await readSecretValue(tx, factoryId, row.secretName);
  if (!secret && requireSecret) {
    const message = `No team secret is named ${row.secretName}: create it on the Secrets page first`;
    throw new AppError('validation_failed', message, { secretName: message });
  }
  if (secret && row.authMode === 'url_token' && !isUrlSafe(secret.value)) {
    throw new AppError('validation_failed', `The value of ${row.secretName} is not URL-safe, so it cannot be a URL token`, {
      secretName: `The value of ${row.secretName} is not URL-safe (use only letters, digits, and - . _ ~), so it cannot be a URL token`,
    });
  }
  await tx.webhook.update({
    where: { id: row.id },
    data: {
      credentialEncrypted: secret ? encryptSecret(secret.value, credentialContext(row.uid)) : null,
      credentialVersion: secret?.version ?? null,
      appliedAt: new Date(),
    },
  });
  return secret;
}
