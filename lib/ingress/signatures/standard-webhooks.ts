// Standard Webhooks (standardwebhooks.com, and Svix which it grew out of):
// HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`, keyed with the
// base64 secret after its `whsec_` prefix; `webhook-signature` carries
// space-separated `v1,<base64>` entries so senders can rotate keys, and one
// match suffices. The timestamp must be within 300 s of now, either direction.
// The asymmetric v1a variant (standard-webhooks-v1a.ts) shares the headers.
import { windowOf } from './keyed-header';
import { schemes } from './registry';
import { OK, anyDigestEqual, decodeBase64, decodeBase64Digest, fail, headerBytes, hmacSha256, parseUnixSeconds, readHeader, withinWindow } from './shared';
import type { Verifier, VerifyResult } from './types';

const WINDOW = windowOf(schemes['standard-webhooks']);

/**
 * The HMAC key from a stored secret, or null when it cannot be one. An empty
 * key would let anyone sign, so an unusable secret fails closed.
 */
function signingKey(secret: string): Buffer | null {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  // Some issuers drop the base64 padding; the bytes are the same.
  const key = decodeBase64(encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '='));
  return key !== null && key.length > 0 ? key : null;
}

export type SignedHeaders = {
  /** The signed prefix `${id}.${timestamp}.`, as sent, so a reformatted value cannot pass. */
  signedPrefix: Buffer;
  sentAt: number;
  /** The decoded signatures of the wanted version; other versions are skipped, like the reference libraries do. */
  candidates: Buffer[];
};

/** The header trio, from `webhook-*` or, for Svix senders, `svix-*` (never a mix), with the signatures of one version. */
export function readSignedHeaders(headers: Headers, version: 'v1' | 'v1a', signatureBytes: number): SignedHeaders | VerifyResult {
  const prefix = headers.has('webhook-id') || headers.has('webhook-timestamp') || headers.has('webhook-signature') ? 'webhook' : 'svix';
  const id = readHeader(headers, `${prefix}-id`);
  const timestamp = readHeader(headers, `${prefix}-timestamp`);
  const signature = readHeader(headers, `${prefix}-signature`);
  if (id === null || timestamp === null || signature === null) return fail('missing');

  const sentAt = parseUnixSeconds(timestamp);
  if (sentAt === null) return fail('malformed');
  const candidates: Buffer[] = [];
  for (const entry of signature.split(' ')) {
    if (!entry.startsWith(`${version},`)) continue;
    const decoded = decodeBase64Digest(entry.slice(version.length + 1), signatureBytes);
    if (decoded !== null) candidates.push(decoded);
  }
  if (candidates.length === 0) return fail('malformed');
  return { signedPrefix: headerBytes(`${id}.${timestamp}.`), sentAt, candidates };
}

/** The verdict once the signature matched or not: 'stale' only ever describes a genuine signature. */
export function standardVerdict(matched: boolean, sentAt: number, now: number): VerifyResult {
  if (!matched) return fail('mismatch');
  return withinWindow(WINDOW, sentAt, now) ? OK : fail('stale');
}

export const verify: Verifier = ({ rawBody, headers, secret, now }) => {
  const read = readSignedHeaders(headers, 'v1', 32);
  if ('ok' in read) return read;
  const key = signingKey(secret);
  if (key === null) return fail('mismatch');
  return standardVerdict(anyDigestEqual(read.candidates, hmacSha256(key, read.signedPrefix, rawBody)), read.sentAt, now);
};
