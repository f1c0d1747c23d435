// Microsoft Graph change notifications: no signature. The subscription's
// clientState, which Tripline generates as the webhook's secret and the
// admin passes when creating the subscription, comes back in every item of
// the body's `value` array (lifecycle notifications included). A delivery is
// authentic when every item carries exactly that clientState, compared in
// constant time; an item without one fails the whole batch. The body is
// parsed before authentication because that is where the credential is; the
// ingress has already bounded its size. The validation POST
// (?validationToken=) is answered in lib/ingress/handshakes.ts.
// https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks
// https://learn.microsoft.com/en-us/graph/api/resources/changenotification
import { bytesEqual } from '@/lib/platform/crypto/compare';
import { OK, fail } from './shared';
import type { Verifier } from './types';

/** Graph's limit on a subscription's clientState (subscription resource type). */
export const GRAPH_CLIENT_STATE_MAX = 128;

function notificationsOf(rawBody: Buffer): unknown {
  try {
    const body: unknown = JSON.parse(rawBody.toString('utf8'));
    return typeof body === 'object' && body !== null ? (body as { value?: unknown }).value : undefined;
  } catch {
    return undefined;
  }
}

export const verify: Verifier = ({ rawBody, secret }) => {
  const value = notificationsOf(rawBody);
  if (!Array.isArray(value) || value.length === 0) return fail('missing');
  if (secret === '' || secret.length > GRAPH_CLIENT_STATE_MAX) return fail('mismatch');
  let matched = true;
  for (const item of value) {
    const state = typeof item === 'object' && item !== null ? (item as { clientState?: unknown }).clientState : undefined;
    // Every item is compared, so the time taken says nothing about which one differed.
    matched = (typeof state === 'string' && bytesEqual(state, secret)) && matched;
  }
  return matched ? OK : fail('mismatch');
};

// A validation token past this is not Graph's (its tokens are about a hundred characters).
export const GRAPH_TOKEN_MAX = 1024;
// Control characters, format characters, unpaired surrogates and line separators: refused, never escaped.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The answer to Graph's validation: the token as URLSearchParams decoded it,
 * with HTML's special characters escaped. Graph's token holds spaces and
 * never HTML (its docs advise escaping anyway), so a real token is echoed
 * unchanged, and a hostile one can never be echoed as markup. Null (refused)
 * for an empty token, one over GRAPH_TOKEN_MAX characters, or one with a
 * control character.
 */
export function graphValidationAnswer(token: string | null): string | null {
  if (token === null || token.length === 0 || token.length > GRAPH_TOKEN_MAX || UNPRINTABLE.test(token)) return null;
  return token.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

export const REDACTED_CLIENT_STATE = '[redacted]';

/**
 * The body as the log stores it and runs receive it: each notification's
 * clientState, which is the webhook's secret, replaced by "[redacted]" in the
 * text and in the parsed value alike (filters at the ingress and in a
 * backtest then see the same body). Everything else stays byte for byte.
 * Only a clientState equal to the secret is replaced, which after
 * verification is every one.
 */
export function redactClientState(text: string, value: unknown, secret: string): { text: string; value: unknown } {
  if (secret === '') return { text, value };
  const literal = JSON.stringify(secret).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const redactedText = text.replace(new RegExp(`("clientState"\\s*:\\s*)${literal}`, 'g'), `$1${JSON.stringify(REDACTED_CLIENT_STATE)}`);
  const items = typeof value === 'object' && value !== null ? (value as { value?: unknown }).value : undefined;
  if (Array.isArray(items)) {
    for (const item of items) {
      if (typeof item === 'object' && item !== null && (item as { clientState?: unknown }).clientState === secret) (item as { clientState: string }).clientState = REDACTED_CLIENT_STATE;
    }
  }
  return { text: redactedText, value };
}
