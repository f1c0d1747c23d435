import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of two arbitrary byte strings (strings are taken as
 * UTF-8). Hashing first makes both sides 32 bytes, so neither the
 * comparison's duration nor a length check tells an attacker how long the
 * secret is.
 */
export function bytesEqual(a: Buffer | string, b: Buffer | string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
