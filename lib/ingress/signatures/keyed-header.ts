// Schemes whose one header lists a timestamp and one or more signatures as
// key=value items: Stripe (`t=…,v1=…`), Calendly (same shape) and Paddle
// Billing (`ts=…;h1=…`). Each signature is the hex HMAC-SHA256 of
// `${timestamp}${join}${body}` keyed with the whole secret string. Several
// signatures appear while a secret rolls; one match suffices, and items of
// other versions are ignored, as the providers' libraries do.
import { OK, anyDigestEqual, decodeHexDigest, fail, hmacSha256, parseSignatureItems, parseUnixSeconds, readHeader, withinWindow, type TimestampRule } from './shared';
import type { Verifier } from './types';

export type KeyedHeaderOptions = {
  header: string;
  separator: ',' | ';';
  timestampKey: string;
  signatureKey: string;
  join: string;
  window: TimestampRule;
};

export function keyedHeaderVerifier(options: KeyedHeaderOptions): Verifier {
  return ({ rawBody, headers, secret, now }) => {
    const header = readHeader(headers, options.header);
    if (header === null) return fail('missing');
    const items = parseSignatureItems(header, options.separator);
    const timestamps = items.get(options.timestampKey) ?? [];
    // Two timestamps would make the signed payload ambiguous.
    if (timestamps.length !== 1) return fail('malformed');
    const timestamp = timestamps[0]!;
    const sentAt = parseUnixSeconds(timestamp);
    // Placeholder entries (Paddle's own test sends `h1=dummy`) are skipped, not fatal.
    const candidates = (items.get(options.signatureKey) ?? []).map((value) => decodeHexDigest(value)).filter((digest) => digest !== null);
    if (sentAt === null || candidates.length === 0) return fail('malformed');

    if (secret === '') return fail('mismatch');
    if (!anyDigestEqual(candidates, hmacSha256(secret, `${timestamp}${options.join}`, rawBody))) return fail('mismatch');
    // Checked after the signature so that 'stale' always means a genuine but replayed or clock-skewed delivery.
    return withinWindow(options.window, sentAt, now) ? OK : fail('stale');
  };
}

/** The window a registry entry declares, for verifiers that read it. */
export function windowOf(scheme: { timestampToleranceSeconds: number | null; timestampDirection: 'both' | 'past' }): TimestampRule {
  return { toleranceSeconds: scheme.timestampToleranceSeconds, direction: scheme.timestampDirection };
}
