// Airtable: `X-Airtable-Content-MAC: hmac-sha256=<hex>`, the HMAC-SHA256 of the
// raw body keyed with the base64-DECODED macSecretBase64 of the webhook (the
// trap: keying with the base64 text itself fails). No timestamp.
import { bodyHmacVerifier } from './body-hmac';
import { decodeBase64 } from './shared';

export const verify = bodyHmacVerifier({
  header: 'X-Airtable-Content-MAC',
  prefix: 'hmac-sha256=',
  algorithm: 'sha256',
  encoding: 'hex',
  // Padding restored first: the key is the same bytes whether or not the pasted text kept its '='.
  key: (secret) => decodeBase64(secret.padEnd(Math.ceil(secret.length / 4) * 4, '=')),
});
