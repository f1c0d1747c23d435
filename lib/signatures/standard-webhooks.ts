// Standard Webhooks (standardwebhooks.com, and Svix which it grew out of):
// HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`, keyed with the
// base64 secret after its `whsec_` prefix; `webhook-signature` carries
// space-separated `v1,<base64>` entries so senders can rotate keys, and one
// match suffices. The timestamp must be within 300 s of now, either direction.
import { schemes } from './registry';
import { OK, decodeBase64, decodeBase64Digest, digestsEqual, fail, headerBytes, hmacSha256, parseUnixSeconds, readHeader } from './shared';
import type { Verifier } from './types';

const TOLERANCE_SECONDS = schemes['standard-webhooks'].timestampToleranceSeconds;

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

/** The header trio, from `webhook-*` or, for Svix senders, `svix-*`; never a mix of the two. */
function signatureHeaders(headers: Headers) {
  const prefix = headers.has('webhook-id') || headers.has('webhook-timestamp') || headers.has('webhook-signature') ? 'webhook' : 'svix';
  return {
    id: readHeader(headers, `${prefix}-id`),
    timestamp: readHeader(headers, `${prefix}-timestamp`),
    signature: readHeader(headers, `${prefix}-signature`),
  };
}

export const verify: Verifier = ({ rawBody, headers, secret, now }) => {
  const { id, timestamp, signature } = signatureHeaders(headers);
  if (id === null || timestamp === null || signature === null) return fail('missing');

  const sentAt = parseUnixSeconds(timestamp);
  if (sentAt === null) return fail('malformed');

  // Other versions (v1a is Ed25519) need other key material: skip them, like the reference libraries.
  const candidates: Buffer[] = [];
  for (const entry of signature.split(' ')) {
    if (!entry.startsWith('v1,')) continue;
    const digest = decodeBase64Digest(entry.slice('v1,'.length));
    if (digest !== null) candidates.push(digest);
  }
  if (candidates.length === 0) return fail('malformed');

  const key = signingKey(secret);
  if (key === null) return fail('mismatch');

  // The id and timestamp are signed as sent, so a reformatted value cannot pass.
  const expected = hmacSha256(key, headerBytes(`${id}.${timestamp}.`), rawBody);
  let matched = false;
  for (const candidate of candidates) matched = digestsEqual(candidate, expected) || matched;
  if (!matched) return fail('mismatch');

  // Checked after the signature so that 'stale' always means a genuine but replayed or clock-skewed delivery.
  if (Math.abs(now - sentAt) > TOLERANCE_SECONDS) return fail('stale');
  return OK;
};
