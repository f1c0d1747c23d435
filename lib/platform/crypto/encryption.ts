import 'server-only';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { getSecretsKey } from '@/lib/platform/crypto/keys';

// Encryption at rest for team secret values and applied webhook credentials:
// AES-256-GCM with a random 96-bit nonce. The context (for example
// "team-secret:<factoryId>:<name>") is authenticated but not stored, so a
// ciphertext copied into another row fails to decrypt instead of leaking.

const VERSION = 'v1';

export function encryptSecret(plaintext: string, context: string, key: Buffer = getSecretsKey()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
}

export function decryptSecret(encrypted: string, context: string, key: Buffer = getSecretsKey()): string {
  const [version, iv, tag, ciphertext] = encrypted.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error('Unrecognised encrypted value');
  }
  const nonce = Buffer.from(iv, 'base64url');
  const authTag = Buffer.from(tag, 'base64url');
  // Exactly what encryptSecret writes: GCM would also take a tag cut to 4 bytes, which is forged far sooner.
  if (nonce.length !== 12 || authTag.length !== 16) throw new Error('Unrecognised encrypted value');
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(authTag);
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
