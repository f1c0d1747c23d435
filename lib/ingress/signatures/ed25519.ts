// Ed25519 with Node's crypto, for Discord and Standard Webhooks v1a. A public
// key arrives as its 32 raw bytes; Node takes it as a JWK.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** The key object for 32 raw public-key bytes, or null when they are not a valid Ed25519 point. */
export function ed25519PublicKey(raw: Buffer): KeyObject | null {
  if (raw.length !== 32) return null;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch {
    return null;
  }
}

export function verifyEd25519(key: KeyObject, message: Buffer, signature: Buffer): boolean {
  if (signature.length !== 64) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}
