import 'server-only';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { env } from '@/lib/platform/env';
import { log } from '@/lib/platform/log';
import { privateFolder } from '@/lib/platform/private-files';

// Key material. Each key comes from its environment variable or, when that is
// unset, from a file in the data folder that is generated on first start
// (mode 0600). Several instances behind a load balancer must share the same
// keys: set the variables there. verifyKeyFingerprints() refuses to start an
// instance whose keys differ from the ones the database was used with.

const SECRETS_KEY_FILE = 'secrets.key';
const AUTH_SECRET_FILE = 'auth.secret';

function readOrCreateKeyFile(fileName: string, create: () => string): { value: string; file: string; created: boolean } {
  const dir = env().dataDir;
  const file = path.join(dir, fileName);
  try {
    return { value: fs.readFileSync(file, 'utf8').trim(), file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  privateFolder(dir);
  const value = create();
  try {
    // 'wx' fails if another process created the file first; then read theirs.
    fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { value: fs.readFileSync(file, 'utf8').trim(), file, created: false };
  }
  log('keys').warn({ file }, `generated ${fileName}: back it up, and keep it out of version control (without it, stored secrets cannot be decrypted)`);
  return { value, file, created: true };
}

export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) {
    throw new Error('TRIPLINE_SECRETS_KEY must be 32 bytes, written as 64 hex characters or base64 (openssl rand -base64 32)');
  }
  return key;
}

let secretsKey: Buffer | undefined;

/** The AES-256 key that encrypts team secrets and webhook credentials at rest. */
export function getSecretsKey(): Buffer {
  if (!secretsKey) {
    const fromEnv = env().secretsKey;
    secretsKey = parseSecretsKey(
      fromEnv ?? readOrCreateKeyFile(SECRETS_KEY_FILE, () => randomBytes(32).toString('base64')).value,
    );
  }
  return secretsKey;
}

let authSecret: string | undefined;

/** The secret that signs session cookies (next-auth). */
export function getAuthSecret(): string {
  if (!authSecret) {
    const fromEnv = env().authSecret;
    if (fromEnv !== undefined && fromEnv.length < 32) {
      throw new Error('TRIPLINE_AUTH_SECRET must be at least 32 characters (openssl rand -base64 32)');
    }
    authSecret = fromEnv ?? readOrCreateKeyFile(AUTH_SECRET_FILE, () => randomBytes(32).toString('base64url')).value;
  }
  return authSecret;
}

/** A fingerprint that identifies a key without revealing it. */
export function keyFingerprint(key: Buffer | string, purpose: string): string {
  return createHmac('sha256', key).update(`tripline key fingerprint: ${purpose}`).digest('hex').slice(0, 16);
}
