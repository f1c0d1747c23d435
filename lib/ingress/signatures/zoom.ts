// Zoom: `x-zm-signature: v0=<hex>`, the HMAC-SHA256 of
// `v0:${x-zm-request-timestamp}:${body}` keyed with the app's Secret Token:
// Slack's construction. Zoom publishes no window for the timestamp, so none
// is applied. Its endpoint.url_validation request is signed the same way and
// answered in lib/ingress/handshakes.ts.
import { windowOf } from './keyed-header';
import { schemes } from './registry';
import { v0Verifier } from './v0-hmac';

export const verify = v0Verifier({ signatureHeader: 'x-zm-signature', timestampHeader: 'x-zm-request-timestamp', window: windowOf(schemes.zoom) });

// Zoom's plainToken is base64url-like ("qgg8vlvZRS6UYooatFL8Aw" in its docs).
// Without ':' a token can never be `v0:<timestamp>:<body>`, the message
// Zoom's deliveries sign, so the encryptedToken answered for it is never a
// delivery's signature (lib/ingress/handshakes.ts).
const PLAIN_TOKEN = /^[A-Za-z0-9+/=_-]{1,256}$/;

/** A plainToken Tripline may answer with its HMAC, or null. */
export function zoomPlainToken(value: unknown): string | null {
  return typeof value === 'string' && PLAIN_TOKEN.test(value) ? value : null;
}
