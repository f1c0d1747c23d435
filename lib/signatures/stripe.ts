// Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…][,v0=<hex>]`, each v1
// the HMAC-SHA256 of `${t}.${body}` keyed with the whole endpoint secret,
// `whsec_` prefix included, as UTF-8 bytes. Several v1 entries appear while a
// secret is rolled; one match suffices. v0 is a test-mode legacy scheme that
// Stripe's libraries ignore, and so do we.
//
// Tolerance is one-sided, as in Stripe's libraries (stripe-node rejects only
// when now - t > tolerance; stripe-python, -go, -dotnet likewise): a delivery
// older than 300 s is stale, one stamped ahead of our clock is accepted. Only
// Stripe can produce a valid t, so a future t means clock skew, and rejecting
// it would drop every event while our clock runs slow.
import { schemes } from './registry';
import { OK, decodeHexDigest, digestsEqual, fail, hmacSha256, parseUnixSeconds, readHeader } from './shared';
import type { Verifier } from './types';

const TOLERANCE_SECONDS = schemes.stripe.timestampToleranceSeconds;

export const verify: Verifier = ({ rawBody, headers, secret, now }) => {
  const header = readHeader(headers, 'Stripe-Signature');
  if (header === null) return fail('missing');

  let timestamp: string | null = null;
  const candidates: Buffer[] = [];
  for (const item of header.split(',')) {
    const separator = item.indexOf('=');
    if (separator < 0) continue;
    const key = item.slice(0, separator);
    const value = item.slice(separator + 1);
    if (key === 't') {
      // Two timestamps would make the signed payload ambiguous.
      if (timestamp !== null) return fail('malformed');
      timestamp = value;
    } else if (key === 'v1') {
      const digest = decodeHexDigest(value);
      if (digest !== null) candidates.push(digest);
    }
  }
  if (timestamp === null || candidates.length === 0) return fail('malformed');
  const sentAt = parseUnixSeconds(timestamp);
  if (sentAt === null) return fail('malformed');

  if (secret === '') return fail('mismatch');
  const expected = hmacSha256(secret, `${timestamp}.`, rawBody);
  let matched = false;
  for (const candidate of candidates) matched = digestsEqual(candidate, expected) || matched;
  if (!matched) return fail('mismatch');

  if (now - sentAt > TOLERANCE_SECONDS) return fail('stale');
  return OK;
};
