// The most common provider scheme: one header carrying an HMAC of the raw
// body, keyed with the webhook secret, nothing else signed. The providers
// differ only in the header's name, a prefix, the hash and the encoding, so
// each of their files is one call to bodyHmacVerifier.
import { OK, decodeBase64Digest, decodeHexDigest, digestsEqual, fail, hmac, readHeader, type HmacAlgorithm } from './shared';
import type { Verifier } from './types';

const DIGEST_BYTES: Record<HmacAlgorithm, number> = { sha256: 32, sha1: 20 };

export type BodyHmacOptions = {
  /** The signature header; with several names, the first one present is checked (Gitea and Forgejo send both). */
  header: string | readonly string[];
  /** A literal prefix before the digest, e.g. `sha256=`; a value without it is malformed. */
  prefix?: string;
  algorithm: HmacAlgorithm;
  encoding: 'hex' | 'base64';
  /** The HMAC key from the stored secret (default: its UTF-8 bytes); null when the secret cannot be a key. */
  key?: (secret: string) => Buffer | null;
};

export function bodyHmacVerifier(options: BodyHmacOptions): Verifier {
  const names = typeof options.header === 'string' ? [options.header] : options.header;
  const prefix = options.prefix ?? '';
  const bytes = DIGEST_BYTES[options.algorithm];
  const decode = options.encoding === 'hex' ? decodeHexDigest : decodeBase64Digest;
  const toKey = options.key ?? ((secret: string) => Buffer.from(secret, 'utf8'));

  return ({ rawBody, headers, secret }) => {
    let header: string | null = null;
    for (const name of names) header ??= readHeader(headers, name);
    if (header === null) return fail('missing');
    if (!header.startsWith(prefix)) return fail('malformed');
    const digest = decode(header.slice(prefix.length), bytes);
    if (digest === null) return fail('malformed');
    // An empty key is public knowledge: fail closed rather than accept anyone's signature.
    const key = toKey(secret);
    if (key === null || key.length === 0) return fail('mismatch');
    return digestsEqual(digest, hmac(options.algorithm, key, rawBody)) ? OK : fail('mismatch');
  };
}
