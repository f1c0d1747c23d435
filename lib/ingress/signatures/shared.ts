// Small helpers shared by the scheme verifiers. Everything here is total: it
// returns null or false on hostile input instead of throwing.
import { createHmac, timingSafeEqual } from 'node:crypto';
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

export type HmacAlgorithm = 'sha256' | 'sha1';

export function hmac(algorithm: HmacAlgorithm, key: Buffer | string, ...parts: (Buffer | string)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

export function hmacSha256(key: Buffer | string, ...parts: (Buffer | string)[]): Buffer {
  return hmac('sha256', key, ...parts);
}

/** Whether any candidate equals the expected digest. Every candidate is compared, so timing says nothing about which one matched. */
export function anyDigestEqual(candidates: readonly Buffer[], expected: Buffer): boolean {
  let matched = false;
  for (const candidate of candidates) matched = digestsEqual(candidate, expected) || matched;
  return matched;
}

/** Constant-time equality of two digests; unequal lengths are simply unequal. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A hex digest of exactly `bytes` bytes (SHA-256 by default), or null.
 * Buffer.from(…, 'hex') silently stops at the first bad character, hence the pattern.
 */
export function decodeHexDigest(value: string, bytes = 32): Buffer | null {
  return value.length === bytes * 2 && HEX.test(value) ? Buffer.from(value, 'hex') : null;
}

/** A padded base64 digest of exactly `bytes` bytes, or null. Buffer.from(…, 'base64') skips junk characters, hence the pattern. */
export function decodeBase64Digest(value: string, bytes = 32): Buffer | null {
  return value.length === Math.ceil(bytes / 3) * 4 && BASE64.test(value) && Buffer.byteLength(value, 'base64') === bytes ? Buffer.from(value, 'base64') : null;
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

// RFC 3339 in UTC as providers send it, with up to nanosecond fractions (Twitch) or none (Zendesk).
const RFC3339_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;

/** An RFC 3339 UTC timestamp as unix seconds (fraction dropped), or null. */
export function parseRfc3339Seconds(value: string): number | null {
  const match = RFC3339_UTC.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 2024-02-31 over into March; a value that does not round-trip is not a real time.
  const date = new Date(ms);
  if (date.getUTCDate() !== day || date.getUTCHours() !== hour || date.getUTCMinutes() !== minute || date.getUTCSeconds() !== second) return null;
  return ms / 1000;
}

export type TimestampRule = { toleranceSeconds: number | null; direction: 'both' | 'past' };

/**
 * Whether a signed timestamp is inside the scheme's window. 'past' accepts a
 * timestamp ahead of our clock (only the provider can produce a valid one, so
 * that is clock skew); 'both' bounds the distance either way.
 */
export function withinWindow(rule: TimestampRule, sentAt: number, now: number): boolean {
  if (rule.toleranceSeconds === null) return true;
  return rule.direction === 'past' ? now - sentAt <= rule.toleranceSeconds : Math.abs(now - sentAt) <= rule.toleranceSeconds;
}

/**
 * Items of a signature header such as `t=1,v1=ab,v1=cd`: the values of each
 * key, in order. Items without '=' are skipped.
 */
export function parseSignatureItems(header: string, separator: string): Map<string, string[]> {
  const items = new Map<string, string[]>();
  for (const item of header.split(separator)) {
    const at = item.indexOf('=');
    if (at < 0) continue;
    const key = item.slice(0, at).trim();
    const values = items.get(key) ?? [];
    values.push(item.slice(at + 1).trim());
    items.set(key, values);
  }
  return items;
}
