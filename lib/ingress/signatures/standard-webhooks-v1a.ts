// Standard Webhooks v1a: the same headers and signed content as v1
// (`${webhook-id}.${webhook-timestamp}.${body}`), signed with Ed25519 instead
// of HMAC. `webhook-signature` carries `v1a,<base64 of 64 bytes>` entries; the
// stored secret is the sender's public key, `whpk_` + base64 of 32 bytes (the
// `whsk_` private key never leaves the sender). ±300 s, like v1.
import { ed25519PublicKey, verifyEd25519 } from './ed25519';
import { decodeBase64Digest, fail } from './shared';
import { readSignedHeaders, standardVerdict } from './standard-webhooks';
import type { Verifier } from './types';

export const verify: Verifier = ({ rawBody, headers, secret, now }) => {
  const read = readSignedHeaders(headers, 'v1a', 64);
  if ('ok' in read) return read;
  const raw = secret.startsWith('whpk_') ? decodeBase64Digest(secret.slice('whpk_'.length), 32) : null;
  const key = raw === null ? null : ed25519PublicKey(raw);
  if (key === null) return fail('mismatch');
  const message = Buffer.concat([read.signedPrefix, rawBody]);
  let matched = false;
  for (const candidate of read.candidates) matched = verifyEd25519(key, message, candidate) || matched;
  return standardVerdict(matched, read.sentAt, now);
};
