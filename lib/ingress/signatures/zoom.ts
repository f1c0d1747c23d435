// Zoom: `x-zm-signature: v0=<hex>`, the HMAC-SHA256 of
// `v0:${x-zm-request-timestamp}:${body}` keyed with the app's Secret Token:
// Slack's construction. Zoom publishes no window for the timestamp, so none
// is applied. Its endpoint.url_validation request is signed the same way and
// answered in lib/ingress/handshakes.ts.
import { windowOf } from './keyed-header';
import { schemes } from './registry';
import { v0Verifier } from './v0-hmac';

export const verify = v0Verifier({ signatureHeader: 'x-zm-signature', timestampHeader: 'x-zm-request-timestamp', window: windowOf(schemes.zoom) });
