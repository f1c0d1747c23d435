// Twilio: `X-Twilio-Signature: <base64>`, the HMAC-SHA1 keyed with the
// account's Auth Token of:
//   - form bodies (Voice, Messaging): the full URL followed by every POST
//     parameter, sorted by name, each as name + value (a repeated name: its
//     distinct values sorted), as twilio's helper libraries compute it;
//   - JSON bodies (Event Streams): the full URL alone, whose `bodySHA256` query
//     parameter must be the hex SHA-256 of the raw body.
// The URL is the one Twilio posted to, query included. Twilio's libraries
// also accept the URL with the default port added or removed, because Twilio
// signs the URL as configured; so do we. No timestamp.
import { createHash } from 'node:crypto';
import { bytesEqual } from '@/lib/platform/crypto/compare';
import { OK, anyDigestEqual, decodeBase64Digest, fail, hmac, readHeader } from './shared';
import type { Verifier } from './types';

/** The URL as given plus the same URL with its default port written out or dropped. */
function urlVariants(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const defaultPort = parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : '';
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  if (!defaultPort || parsed.username || parsed.password || !authority) return [url];
  const explicit = authority.endsWith(`:${defaultPort}`);
  const other = explicit ? authority.slice(0, -(defaultPort.length + 1)) : `${authority}:${defaultPort}`;
  if (!explicit && parsed.port) return [url];
  return [url, url.replace(authority, other)];
}

function formPayload(rawBody: Buffer): string {
  const params = new URLSearchParams(rawBody.toString('utf8'));
  let payload = '';
  for (const name of [...new Set(params.keys())].sort()) {
    for (const value of [...new Set(params.getAll(name))].sort()) payload += name + value;
  }
  return payload;
}

export const verify: Verifier = ({ rawBody, headers, secret, url }) => {
  const header = readHeader(headers, 'X-Twilio-Signature');
  if (header === null) return fail('missing');
  const digest = decodeBase64Digest(header, 20);
  if (digest === null) return fail('malformed');
  if (secret === '' || !url) return fail('mismatch');

  let bodyHash: string | null = null;
  try {
    bodyHash = new URL(url).searchParams.get('bodySHA256');
  } catch {
    return fail('mismatch');
  }
  const candidates = urlVariants(url).map((variant) => hmac('sha1', secret, bodyHash === null ? variant + formPayload(rawBody) : variant));
  if (!anyDigestEqual(candidates, digest)) return fail('mismatch');
  if (bodyHash === null) return OK;
  // The URL signature covers bodySHA256; the body must be the one it names.
  const actual = createHash('sha256').update(rawBody).digest('hex');
  return bytesEqual(Buffer.from(bodyHash.toLowerCase()), Buffer.from(actual)) ? OK : fail('mismatch');
};
