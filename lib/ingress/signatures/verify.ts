// The ingress entry point: one verifier per registry scheme. The Record type
// makes a scheme added to the registry without a verifier a compile error.
import { verify as airtable } from './airtable';
import { verify as asana } from './asana';
import { verify as bitbucket } from './bitbucket';
import { verify as calendly } from './calendly';
import { verify as discord } from './discord';
import { verify as dropbox } from './dropbox';
import { verify as gitea } from './gitea';
import { verify as github } from './github';
import { verify as gitlab } from './gitlab';
import { verify as intercom } from './intercom';
import { verify as jira } from './jira';
import { verify as linear } from './linear';
import { verify as mailgun } from './mailgun';
import { verify as meta } from './meta';
import { redactClientState, verify as microsoftGraph } from './microsoft-graph';
import { verify as okta } from './okta';
import { verify as notion } from './notion';
import { verify as paddle } from './paddle';
import { verify as pagerduty } from './pagerduty';
import { schemes, type SchemeId, type SchemeInfo } from './registry';
import { verify as sentry } from './sentry';
import { fail } from './shared';
import { verify as shopify } from './shopify';
import { verify as slack } from './slack';
import { verify as square } from './square';
import { verify as standardWebhooks } from './standard-webhooks';
import { verify as standardWebhooksV1a } from './standard-webhooks-v1a';
import { verify as stripe } from './stripe';
import { verify as twilio } from './twilio';
import { verify as twitch } from './twitch';
import type { Verifier, VerifyInput, VerifyResult } from './types';
import { verify as typeform } from './typeform';
import { verify as vercel } from './vercel';
import { verify as x } from './x';
import { verify as zendesk } from './zendesk';
import { verify as zoom } from './zoom';

export type { Verifier, VerifyFailure, VerifyInput, VerifyResult } from './types';

export const verifiers: Record<SchemeId, Verifier> = {
  'standard-webhooks': standardWebhooks,
  'standard-webhooks-v1a': standardWebhooksV1a,
  github,
  stripe,
  slack,
  linear,
  shopify,
  gitlab,
  pagerduty,
  sentry,
  paddle,
  square,
  twilio,
  calendly,
  typeform,
  vercel,
  gitea,
  bitbucket,
  jira,
  intercom,
  zendesk,
  twitch,
  zoom,
  discord,
  notion,
  airtable,
  asana,
  dropbox,
  mailgun,
  'microsoft-graph': microsoftGraph,
  okta,
  meta,
  x,
};

export function verifySignature(scheme: SchemeId, input: VerifyInput): VerifyResult {
  // Schemes come from stored rows: an unknown one (or 'toString') must not reach a prototype method.
  if (!Object.hasOwn(verifiers, scheme)) return fail('mismatch');
  try {
    return verifiers[scheme](input);
  } catch {
    // The verifiers are written not to throw; should one ever do so on some
    // unforeseen input, the request is still refused rather than crashing the ingress.
    return fail('malformed');
  }
}

/** The provider's own delivery ID for dedup, or null when the scheme has none or the header is absent. */
export function providerDeliveryId(scheme: SchemeId, headers: Headers): string | null {
  const info: SchemeInfo = schemes[scheme];
  if (info.deliveryIdHeader === null) return null;
  for (const name of [info.deliveryIdHeader, ...(info.deliveryIdFallbackHeaders ?? [])]) {
    const value = headers.get(name);
    if (value) return value;
  }
  return null;
}

/**
 * The delivery ID a scheme names in its verified body (Stripe: the event's
 * `id`), for schemes without a delivery header; null when the body names
 * none. The recovery by import (lib/domain/connections/import.ts) takes the
 * identity of an event fetched from the provider's API the same way.
 */
export function providerBodyDeliveryId(scheme: SchemeId, body: unknown): string | null {
  const field = (schemes[scheme] as SchemeInfo).deliveryIdBodyField;
  if (!field) return null;
  let value: unknown = body;
  for (const key of field.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' ? value : null;
}

/** Whether the scheme's bodies identify a delivery when nothing else does (not Dropbox's: registry, bodyIsNoIdentity). */
export function bodyIdentifies(scheme: SchemeId | null): boolean {
  return !(scheme && (schemes[scheme] as SchemeInfo).bodyIsNoIdentity);
}

/**
 * The body as the log stores it and runs receive it, for schemes whose
 * credential travels in the body (Microsoft Graph's clientState): redacted,
 * like the credential headers of every other scheme. Other schemes' bodies
 * are returned as they are.
 */
export function redactBodyCredential(scheme: SchemeId, body: { text: string; value: unknown }, secret: string): { text: string; value: unknown } {
  return scheme === 'microsoft-graph' ? redactClientState(body.text, body.value, secret) : body;
}
