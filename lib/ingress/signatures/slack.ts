// Slack signing secrets: `X-Slack-Signature: v0=<hex>`, the HMAC-SHA256 of
// `v0:${X-Slack-Request-Timestamp}:${body}` keyed with the app's signing
// secret. Slack tells receivers to reject a timestamp more than five minutes
// from now; its SDKs compare the absolute difference, so both directions.
import { windowOf } from './keyed-header';
import { schemes } from './registry';
import { v0Verifier } from './v0-hmac';

export const verify = v0Verifier({ signatureHeader: 'X-Slack-Signature', timestampHeader: 'X-Slack-Request-Timestamp', window: windowOf(schemes.slack) });
