import { Webhook } from 'standardwebhooks';
import type { AuthMode } from '@/lib/domain/webhooks/schemas';

// The ready-to-paste curl command that sends a test delivery, for the webhook
// kinds a person can send by hand: bearer token, URL token, and Standard
// Webhooks (signed here with the standardwebhooks package, so the command
// carries a correct signature). Shared by the creation result and the empty
// delivery log. Provider schemes are sent by their provider, not by hand.

export const TEST_BODY = '{"hello":"world"}';

export type TestRequestInput = {
  /** The URL as it should be posted to (for url_token: with the token, or the {token} placeholder). */
  ingressUrl: string;
  authMode: AuthMode;
  scheme: string | null;
  /** The webhook's secret when the caller has it; otherwise a placeholder is shown (bearer) or nothing is offered (Standard Webhooks). */
  secret: string | null;
  /** Unix seconds for the Standard Webhooks timestamp; the signature is valid for 300 s around it. */
  now?: number;
};

export function testRequestCurl({ ingressUrl, authMode, scheme, secret, now = Math.floor(Date.now() / 1000) }: TestRequestInput): string | null {
  const headers: string[] = [];
  if (authMode === 'token') {
    headers.push(`Authorization: Bearer ${secret ?? '<secret>'}`);
  } else if (authMode === 'signature') {
    if (scheme !== 'standard-webhooks' || !secret) return null;
    const id = `msg_test_${now}`;
    headers.push(`webhook-id: ${id}`, `webhook-timestamp: ${now}`, `webhook-signature: ${new Webhook(secret).sign(id, new Date(now * 1000), TEST_BODY)}`);
  }
  headers.push('Content-Type: application/json');
  return [`curl -X POST '${ingressUrl}' \\`, ...headers.map((header) => `  -H '${header}' \\`), `  -d '${TEST_BODY}'`].join('\n');
}
