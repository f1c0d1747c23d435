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

  it('refuses a tag cut short, which GCM itself would check only as far as it goes', () => {
    const parts = encryptSecret('value', 'ctx', key).split('.');
    // The first 4 bytes of a right tag: a 32-bit check, which a forger passes in 2^32 tries.
    parts[2] = Buffer.from(parts[2]!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => decryptSecret(parts.join('.'), 'ctx', key)).toThrow(/Unrecognised/);
    const nonce = encryptSecret('value', 'ctx', key).split('.');
    nonce[1] = Buffer.from(nonce[1]!, 'base64url').subarray(0, 8).toString('base64url');
    expect(() => decryptSecret(nonce.join('.'), 'ctx', key)).toThrow(/Unrecognised/);
  });

  it('accepts 32-byte keys as hex or base64 only', () => {
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(() => parseSecretsKey('too-short')).toThrow(/32 bytes/);
  });
});
