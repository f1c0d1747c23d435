// Small helpers shared by the scheme verifiers. Everything here is total: it
// returns null or false on hostile input instead of throwing.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { VerifyFailure, VerifyResult } from './types';

export const OK: VerifyResult = { ok: true };

export function fail(reason: VerifyFailure): VerifyResult {
  return { ok: false, reason };
}

/** A header's value, treating an empty value like an absent header (a sender configured without a secret). */
export function readHeader(headers: Headers, name: string): string | null {
  const value = headers.get(name);
  return value === null || value === '' ? null : value;
}

/**
 * The bytes of a header value as they were on the wire. WHATWG Headers hold
 * ByteStrings (one char per byte, never above U+00FF), so latin1 recovers
 * the sender's bytes exactly, whatever encoding the sender used.
 */
export function headerBytes(value: string): Buffer {
  return Buffer.from(value, 'latin1');
}

export function hmacSha256(key: Buffer | string, ...parts: (Buffer | string)[]): Buffer {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** Constant-time equality of two digests; unequal lengths are simply unequal. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Constant-time equality of two arbitrary byte strings. Hashing first makes
 * both sides 32 bytes, so neither the comparison's duration nor a length
 * check tells an attacker how long the secret is.
 */
export function bytesEqual(a: Buffer, b: Buffer): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
// 32 bytes in padded standard base64: 43 characters and one '='.
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A hex SHA-256 digest, or null. Buffer.from(…, 'hex') silently stops at the first bad character, hence the pattern. */
export function decodeHexDigest(value: string): Buffer | null {
  return HEX_SHA256.test(value) ? Buffer.from(value, 'hex') : null;
}

/** A base64 SHA-256 digest, or null. Buffer.from(…, 'base64') skips junk characters, hence the pattern. */
export function decodeBase64Digest(value: string): Buffer | null {
  return BASE64_SHA256.test(value) ? Buffer.from(value, 'base64') : null;
}

/** Strict padded base64, or null. */
export function decodeBase64(value: string): Buffer | null {
  return BASE64.test(value) ? Buffer.from(value, 'base64') : null;
}

// Fifteen digits stay far inside Number.MAX_SAFE_INTEGER and far past any real clock.
const UNIX_SECONDS = /^\d{1,15}$/;

/** A unix-seconds header value as a number, or null when it is not plain decimal digits. */
export function parseUnixSeconds(value: string): number | null {
  return UNIX_SECONDS.test(value) ? Number(value) : null;
}
