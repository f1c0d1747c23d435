// Discord interactions: `X-Signature-Ed25519: <hex>`, an Ed25519 signature of
// `${X-Signature-Timestamp}${body}` by the application, checked with its
// public key (64 hex characters, stored as the webhook's provider secret).
// Discord publishes no window for the timestamp. When the Interactions
// Endpoint URL is saved Discord sends a PING (answered in
// lib/ingress/handshakes.ts) and deliberately mis-signed requests, which must
// get 401.
import { ed25519PublicKey, verifyEd25519 } from './ed25519';
import { OK, fail, headerBytes, readHeader } from './shared';
import type { Verifier } from './types';

const HEX_SIGNATURE = /^[0-9a-fA-F]{128}$/;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;

export const verify: Verifier = ({ rawBody, headers, secret }) => {
  const signature = readHeader(headers, 'X-Signature-Ed25519');
  const timestamp = readHeader(headers, 'X-Signature-Timestamp');
  if (signature === null || timestamp === null) return fail('missing');
  if (!HEX_SIGNATURE.test(signature)) return fail('malformed');
  const key = HEX_KEY.test(secret) ? ed25519PublicKey(Buffer.from(secret, 'hex')) : null;
  if (key === null) return fail('mismatch');
  return verifyEd25519(key, Buffer.concat([headerBytes(timestamp), rawBody]), Buffer.from(signature, 'hex')) ? OK : fail('mismatch');
};
