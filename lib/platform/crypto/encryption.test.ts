import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from '@/lib/platform/crypto/encryption';
import { parseSecretsKey } from '@/lib/platform/crypto/keys';

const key = randomBytes(32);

describe('secret encryption at rest', () => {
  it('round-trips and never contains the plaintext', () => {
    const encrypted = encryptSecret('whsec_super-secret-value', 'team-secret:f1:github', key);
    expect(encrypted).not.toContain('super-secret');
    expect(decryptSecret(encrypted, 'team-secret:f1:github', key)).toBe('whsec_super-secret-value');
  });

  it('uses a fresh nonce each time', () => {
    expect(encryptSecret('same', 'ctx', key)).not.toBe(encryptSecret('same', 'ctx', key));
  });

  it('refuses a ciphertext moved to another context, a wrong key, or tampering', () => {
    const encrypted = encryptSecret('value', 'team-secret:f1:a', key);
    expect(() => decryptSecret(encrypted, 'team-secret:f2:a', key)).toThrow();
    expect(() => decryptSecret(encrypted, 'team-secret:f1:a', randomBytes(32))).toThrow();
    const parts = encrypted.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => decryptSecret(parts.join('.'), 'team-secret:f1:a', key)).toThrow();
    expect(() => decryptSecret('garbage', 'team-secret:f1:a', key)).toThrow(/Unrecognised/);
  });

  it('accepts 32-byte keys as hex or base64 only', () => {
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(() => parseSecretsKey('too-short')).toThrow(/32 bytes/);
  });
});
