import fs from 'node:fs';
import path from 'node:path';
import { KEY_FILES, type KeyFile } from '@/lib/platform/db/backup';
import type { KeyFingerprints } from '@/lib/platform/db/dump';
import { keyFingerprint, parseSecretsKey } from '@/lib/platform/crypto/keys';
import { env } from '@/lib/platform/env';

// The keys around a backup of the embedded database. Each key comes from its
// variable or, when that is unset, from a file generated in the data folder;
// the database records their fingerprints (lib/platform/db/prepare.ts).

export const keyInfo: Record<KeyFile, { purpose: keyof KeyFingerprints; variable: string; protects: string }> = {
  'secrets.key': {
    purpose: 'secrets',
    variable: 'TRIPLINE_SECRETS_KEY',
    protects: 'team secrets and webhook credentials cannot be decrypted',
  },
  'auth.secret': { purpose: 'auth', variable: 'TRIPLINE_AUTH_SECRET', protects: 'sessions cannot be verified' },
};

export function fingerprintOf(file: KeyFile, value: string): string | undefined {
  try {
    return file === 'secrets.key' ? keyFingerprint(parseSecretsKey(value), 'secrets') : keyFingerprint(value.trim(), 'auth');
  } catch {
    return undefined; // not a usable key
  }
}

export function keyFilePath(file: KeyFile): string {
  return path.join(env().dataDir, file);
}

export function readKeyFile(file: KeyFile): string | undefined {
  try {
    return fs.readFileSync(keyFilePath(file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The value this environment would use for a key: its variable, else its file. */
export function keyInEffect(file: KeyFile): { value: string; from: string } | undefined {
  const variable = file === 'secrets.key' ? env().secretsKey : env().authSecret;
  if (variable !== undefined) return { value: variable, from: keyInfo[file].variable };
  const content = readKeyFile(file);
  return content === undefined ? undefined : { value: content, from: keyFilePath(file) };
}

export { KEY_FILES };
