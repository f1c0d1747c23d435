// Provider signature schemes: one registry with each scheme's metadata. The
// identifiers are the allowed values of a webhook's `signatureScheme`.
// Verification lives beside this file (one file per scheme, see the ingress).
import { looksSensitive } from '@/lib/platform/http/sensitive-headers';
import type { EventTypeSource } from './event-types';

export type SecretSource =
  /** We generate the secret and the admin gives it to the sender (blank secret at creation). */
  | 'generated'
  /** The provider issues the secret, often only after it is given the URL: entered in a second step. */
  | 'provider'
  /** The provider sends the secret in its verification handshake, and Tripline stores it (Asana, Notion). */
  | 'handshake';

export type SchemeInfo = {
  id: string;
  displayName: string;
  /** Where a delivery names its kind of event, with the provider's page (lib/ingress/signatures/event-types.ts). */
  eventType: EventTypeSource;
  /** Headers that carry the signature (and timestamp), as the provider names them. */
  signatureHeaders: string[];
  /** How the signature is computed, in one line (docs table and setup guide). */
  algorithm: string;
  /** The provider's own delivery-ID header, used for delivery identity and dedup. */
  deliveryIdHeader: string | null;
  /** Other names the same ID arrives under (Svix's svix-id, Forgejo's X-Forgejo-Delivery). */
  deliveryIdFallbackHeaders?: string[];
  /**
   * For a provider without a delivery header: the field of the (verified)
   * JSON body that names the event, the same on every retry and in the
   * provider's API (Stripe's event `id`, `evt_...`), or that names the
   * request (Mailgun's one-time `signature.token`); a dotted path. Read only
   * for accepted deliveries, after the signature verified.
   */
  deliveryIdBodyField?: string;
  /**
   * The body is no identity: two different events may have the same body (Dropbox's notification
   * lists only the accounts that changed), so without a delivery ID each request is its own delivery.
   */
  bodyIsNoIdentity?: boolean;
  /** Maximum signature age in seconds, when the provider sets one; null when it signs no timestamp or sets no window. */
  timestampToleranceSeconds: number | null;
  /** 'both': at most the tolerance either way; 'past': only the age counts (a stamp ahead of our clock is the provider's skew). */
  timestampDirection: 'both' | 'past';
  /** What is timestamped and how it is checked, in words. */
  timestampRule: string;
  /** What happens when the header carries several signatures. */
  multipleSignatures: string;
  /** Whether the signed content includes the URL the provider posted to (our public ingress URL). */
  signsUrl?: boolean;
  /** The verification the provider performs before it sends events, when it does one. */
  handshake: string | null;
  /** What the provider sends first, once the URL is in place. */
  firstRequest: string;
  /** Who creates the secret when the admin leaves it blank. */
  secretSource: SecretSource;
  /** What the secret looks like, to help the admin paste the right thing. */
  secretHint: string;
  /** A provider-issued secret must match this shape; the message says what was expected. */
  secretFormat?: { pattern: RegExp; message: string };
  /** Where the admin puts our URL and the secret on the provider's side. */
  setup: string[];
  /** The provider's pages the setup, challenge and algorithm were read in (docs/providers.md cites them). */
  docs?: readonly string[];
  /** Bodies the ingress cannot take from this provider, and why (shown in the docs). */
  limitation?: string;
};

// Discord's interaction types by number (receiving-and-responding, "Interaction Type").
const DISCORD_INTERACTION_TYPES = {
  '1': 'PING',
  '2': 'APPLICATION_COMMAND',
  '3': 'MESSAGE_COMPONENT',
  '4': 'APPLICATION_COMMAND_AUTOCOMPLETE',
  '5': 'MODAL_SUBMIT',
} as const;

// Schemes that sign no timestamp: nothing to hold to a window.
const UNTIMED = { timestampToleranceSeconds: null, timestampDirection: 'both', timestampRule: 'none signed' } as const;
const SINGLE = 'one signature per request';

export const schemes = {
  'standard-webhooks': {
    id: 'standard-webhooks',
    displayName: 'Standard Webhooks (and Svix)',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }] }], source: 'https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md (payload `type`, recommended, not required)' },
    signatureHeaders: ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'svix-id', 'svix-timestamp', 'svix-signature'],
    algorithm: 'HMAC-SHA256 of `id.timestamp.body`, base64, key = base64-decoded secret after `whsec_`',
    deliveryIdHeader: 'webhook-id',
    deliveryIdFallbackHeaders: ['svix-id'],
    timestampToleranceSeconds: 300,
    timestampDirection: 'both',
    timestampRule: '`webhook-timestamp` (unix s), ±300 s',
    multipleSignatures: 'space-separated `v1,<sig>` entries; one match suffices (other versions skipped)',
    handshake: null,
    firstRequest: 'Whatever your sender emits first; the signed test request on this page shows one landing.',
    secretSource: 'generated',
    secretHint: 'whsec_ followed by base64, as issued by a Standard Webhooks or Svix sender',
    setup: [
      'Leave the secret blank and Tripline generates a whsec_ secret for you to give the sender, or paste the whsec_ secret your sender issued.',
      'Configure the sender to POST to the ingress URL and sign with that secret; webhook-* and Svix-compatible svix-* headers both work.',
    ],
  },
  'standard-webhooks-v1a': {
    id: 'standard-webhooks-v1a',
    displayName: 'Standard Webhooks v1a (Ed25519)',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }] }], source: 'https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md (payload `type`, recommended, not required)' },
    signatureHeaders: ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'svix-id', 'svix-timestamp', 'svix-signature'],
    algorithm: 'Ed25519 over `id.timestamp.body`, base64; key = the sender’s `whpk_` public key',
    deliveryIdHeader: 'webhook-id',
    deliveryIdFallbackHeaders: ['svix-id'],
    timestampToleranceSeconds: 300,
    timestampDirection: 'both',
    timestampRule: '`webhook-timestamp` (unix s), ±300 s',
    multipleSignatures: 'space-separated `v1a,<sig>` entries; one match suffices (other versions skipped)',
    handshake: null,
    firstRequest: 'Whatever your sender emits first.',
    secretSource: 'provider',
    secretHint: 'the sender’s public key: whpk_ followed by 32 bytes in base64 (never the whsk_ private key)',
    secretFormat: { pattern: /^whpk_[A-Za-z0-9+/]{43}=$/, message: 'A Standard Webhooks public key looks like whpk_ followed by 44 base64 characters' },
    setup: [
      'Ask the sender for its whpk_ public key and enter it here; the private whsk_ key stays with the sender.',
      'Configure the sender to POST to the ingress URL and sign with v1a (Ed25519).',
    ],
  },
  github: {
    id: 'github',
    displayName: 'GitHub',
    eventType: { kind: 'rules', rules: [{ parts: [{ header: 'X-GitHub-Event' }, { body: 'action' }] }], source: 'https://docs.github.com/en/webhooks/webhook-events-and-payloads' },
    signatureHeaders: ['X-Hub-Signature-256'],
    algorithm: 'HMAC-SHA256 of the body, hex, `sha256=` prefix',
    deliveryIdHeader: 'X-GitHub-Delivery',
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'A ping event as soon as the webhook is saved (X-GitHub-Event: ping).',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; GitHub lets you choose it',
    setup: [
      'In the repository or organization, open Settings → Webhooks → Add webhook.',
      'Payload URL: the ingress URL. Content type: application/json. Secret: the secret shown after creation.',
    ],
  },
  stripe: {
    id: 'stripe',
    displayName: 'Stripe',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }] }], source: 'https://docs.stripe.com/api/events/object' },
    signatureHeaders: ['Stripe-Signature'],
    algorithm: 'HMAC-SHA256 of `t.body`, hex; key = the whole `whsec_…` string',
    deliveryIdHeader: null,
    deliveryIdBodyField: 'id',
    timestampToleranceSeconds: 300,
    timestampDirection: 'past',
    timestampRule: '`t=` (unix s), at most 300 s old',
    multipleSignatures: 'several `v1=` entries while a secret rolls; one match suffices (`v0=` ignored)',
    handshake: null,
    firstRequest: 'Nothing until an event happens; “Send test webhook” in the Dashboard sends one at once.',
    secretSource: 'provider',
    secretHint: 'the endpoint signing secret, starting with whsec_ (Stripe uses the whole string as the key)',
    setup: [
      'In the Stripe Dashboard, open Developers → Webhooks → Add endpoint and paste the ingress URL.',
      'Stripe then shows the endpoint’s signing secret (whsec_…): enter it here as the provider secret.',
    ],
  },
  slack: {
    id: 'slack',
    displayName: 'Slack',
    eventType: {
      kind: 'rules',
      rules: [{ when: { part: { body: 'type' }, equals: 'event_callback' }, parts: [{ body: 'event.type' }, { body: 'event.subtype' }] }, { parts: [{ body: 'type' }] }],
      source: 'https://docs.slack.dev/reference/objects/event-object ; https://api.slack.com/events/url_verification',
    },
    signatureHeaders: ['X-Slack-Signature', 'X-Slack-Request-Timestamp'],
    algorithm: 'HMAC-SHA256 of `v0:timestamp:body`, hex, `v0=` prefix',
    deliveryIdHeader: null,
    timestampToleranceSeconds: 300,
    timestampDirection: 'both',
    timestampRule: '`X-Slack-Request-Timestamp` (unix s), ±300 s',
    multipleSignatures: SINGLE,
    handshake: '`url_verification` POST: answered 200 `text/plain` with the `challenge`',
    firstRequest: 'A signed url_verification request when you paste the Request URL; Tripline answers its challenge.',
    secretSource: 'provider',
    secretHint: 'the app’s Signing Secret (Basic Information → App Credentials)',
    setup: [
      'In your Slack app’s settings, copy the Signing Secret from Basic Information and enter it here.',
      'Under Event Subscriptions, paste the ingress URL as the Request URL.',
    ],
    limitation: 'Slash commands and interactivity post form bodies: their signature verifies, then the JSON-only ingress answers 400.',
  },
  linear: {
    id: 'linear',
    displayName: 'Linear',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }, { body: 'action' }] }], source: 'https://linear.app/developers/webhooks' },
    signatureHeaders: ['Linear-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex',
    deliveryIdHeader: 'Linear-Delivery',
    timestampToleranceSeconds: 60,
    timestampDirection: 'both',
    timestampRule: '`webhookTimestamp` (unix ms) in the body, ±60 s',
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until something changes in the selected teams.',
    secretSource: 'provider',
    secretHint: 'the webhook’s signing secret shown by Linear after you create the webhook',
    setup: [
      'In Linear, open Settings → API → Webhooks → New webhook and paste the ingress URL.',
      'Linear then shows the webhook’s signing secret: enter it here as the provider secret.',
    ],
  },
  shopify: {
    id: 'shopify',
    displayName: 'Shopify',
    eventType: { kind: 'rules', rules: [{ parts: [{ header: 'X-Shopify-Topic' }] }], source: 'https://shopify.dev/docs/apps/build/webhooks/delivery-structure' },
    signatureHeaders: ['X-Shopify-Hmac-Sha256'],
    algorithm: 'HMAC-SHA256 of the body, base64',
    deliveryIdHeader: 'X-Shopify-Webhook-Id',
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until a subscribed topic fires; store webhooks have “Send test notification”.',
    secretSource: 'provider',
    secretHint: 'the app’s client secret (or the store’s webhook signing key)',
    setup: [
      'Enter your app’s client secret here (Partner Dashboard → App setup), or the key shown under Settings → Notifications → Webhooks for store webhooks.',
      'Create the webhook subscription with the ingress URL as its address, format JSON.',
    ],
  },
  gitlab: {
    id: 'gitlab',
    displayName: 'GitLab',
    eventType: {
      kind: 'rules',
      rules: [{ parts: [{ body: 'object_kind' }, { body: 'object_attributes.action' }] }, { parts: [{ body: 'event_name' }] }, { parts: [{ header: 'X-Gitlab-Event' }] }],
      source: 'https://docs.gitlab.com/user/project/integrations/webhook_events/ ; https://docs.gitlab.com/administration/system_hooks/',
    },
    signatureHeaders: ['X-Gitlab-Token'],
    algorithm: 'no signature: `X-Gitlab-Token` carries the secret token, compared exactly',
    // Idempotency-Key (GitLab 17.4+) stays the same when GitLab retries or
    // resends a delivery; X-Gitlab-Event-UUID is new for each request that
    // triggers hooks, so a resend would not deduplicate by it. Older GitLab
    // sends only the UUID.
    deliveryIdHeader: 'Idempotency-Key',
    deliveryIdFallbackHeaders: ['X-Gitlab-Event-UUID'],
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until an event; the webhook’s Test button sends one at once.',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; GitLab sends it back verbatim as the secret token',
    setup: [
      'In the project, open Settings → Webhooks → Add new webhook.',
      'URL: the ingress URL. Secret token: the secret shown after creation.',
    ],
  },
  pagerduty: {
    id: 'pagerduty',
    displayName: 'PagerDuty (Webhooks v3)',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'event.event_type' }] }], source: 'https://developer.pagerduty.com/docs/webhooks-overview' },
    signatureHeaders: ['X-PagerDuty-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex, `v1=` prefix; key = the secret as UTF-8',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: 'comma-separated `v1=` entries while a secret rotates; one match suffices',
    handshake: null,
    firstRequest: 'Nothing until an incident changes; “Send Test Event” on the subscription sends a pagey.ping at once.',
    secretSource: 'provider',
    secretHint: 'the signing secret PagerDuty shows once, right after you add the subscription',
    setup: [
      'In PagerDuty, open Integrations → Generic Webhooks (v3) → New Webhook and paste the ingress URL as the Webhook URL.',
      'PagerDuty shows the subscription’s signing secret once after saving: enter it here as the provider secret.',
    ],
    limitation: 'PagerDuty drops a subscription after a 4xx other than 429, so an unset or wrong secret (401) disables it: enter the secret before sending a test.',
  },
  sentry: {
    id: 'sentry',
    displayName: 'Sentry',
    eventType: { kind: 'rules', rules: [{ parts: [{ header: 'Sentry-Hook-Resource' }, { body: 'action' }] }], source: 'https://docs.sentry.io/organization/integrations/integration-platform/webhooks/' },
    signatureHeaders: ['Sentry-Hook-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex; key = the integration’s client secret',
    deliveryIdHeader: 'Request-ID',
    timestampToleranceSeconds: null,
    timestampDirection: 'both',
    timestampRule: 'none signed (`Sentry-Hook-Timestamp` is not covered by the signature)',
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'installation events when the integration is installed, then the resources you ticked (Sentry-Hook-Resource names them).',
    secretSource: 'provider',
    secretHint: 'the integration’s Client Secret (Settings → Developer Settings → your integration)',
    setup: [
      'In Sentry, open Settings → Developer Settings → Custom Integrations, create (or edit) an integration and paste the ingress URL as its Webhook URL.',
      'Tick the resources to receive, save, then copy the Client Secret from the integration’s page and enter it here.',
    ],
  },
  paddle: {
    id: 'paddle',
    displayName: 'Paddle Billing',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'event_type' }] }], source: 'https://developer.paddle.com/webhooks/transactions/transaction-paid' },
    signatureHeaders: ['Paddle-Signature'],
    algorithm: 'HMAC-SHA256 of `ts:body`, hex; key = the whole `pdl_…` secret key',
    deliveryIdHeader: null,
    timestampToleranceSeconds: 5,
    timestampDirection: 'past',
    timestampRule: '`ts=` (unix s), at most 5 s old (Paddle’s SDKs)',
    multipleSignatures: 'several `h1=` entries while a secret rotates; one match suffices',
    handshake: null,
    firstRequest: 'Nothing until an event; Developer Tools → Simulations sends one at once.',
    secretSource: 'provider',
    secretHint: 'the notification destination’s secret key, starting with pdl_ (pdl_ntfset_… today, pdl_ntf_… in Paddle’s SDK tests)',
    secretFormat: { pattern: /^pdl_\S+$/, message: 'A Paddle secret key starts with pdl_ (for example pdl_ntfset_…)' },
    setup: [
      'In Paddle, open Developer Tools → Notifications → New destination, type Webhook, and paste the ingress URL.',
      'Open the saved destination and copy its secret key (pdl_…): enter it here as the provider secret.',
    ],
  },
  square: {
    id: 'square',
    displayName: 'Square',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }] }], source: 'https://developer.squareup.com/reference/square/webhooks/customer.created' },
    signatureHeaders: ['x-square-hmacsha256-signature'],
    algorithm: 'HMAC-SHA256 of `notification URL + body`, base64',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    signsUrl: true,
    handshake: null,
    firstRequest: 'Nothing until an event; “Send Test Event” on the subscription sends one at once.',
    secretSource: 'provider',
    secretHint: 'the subscription’s Signature key (Developer Dashboard → Webhooks → Subscriptions)',
    setup: [
      'In the Square Developer Dashboard, open your application → Webhooks → Subscriptions → Add subscription.',
      'Notification URL: the ingress URL exactly as shown (Square signs the URL, so a different host, scheme or trailing slash fails).',
      'Open the saved subscription, copy its Signature key and enter it here as the provider secret.',
    ],
  },
  twilio: {
    id: 'twilio',
    displayName: 'Twilio',
    eventType: {
      kind: 'none',
      reason: 'classic webhooks carry only statuses (`MessageStatus`, `CallStatus`); the kind is the URL that was configured',
      source: 'https://www.twilio.com/docs/usage/webhooks/messaging-webhooks ; https://www.twilio.com/docs/usage/webhooks/voice-webhooks',
    },
    signatureHeaders: ['X-Twilio-Signature'],
    algorithm: 'HMAC-SHA1, base64, of the URL plus sorted form parameters; JSON: of the URL, whose `bodySHA256` must match the body',
    deliveryIdHeader: 'I-Twilio-Idempotency-Token',
    ...UNTIMED,
    multipleSignatures: SINGLE,
    signsUrl: true,
    handshake: null,
    firstRequest: 'Event Streams sends nothing until an event of a subscribed type occurs.',
    secretSource: 'provider',
    secretHint: 'the account’s Auth Token (Console → Account Info)',
    setup: [
      'In the Twilio Console, open Event Streams → Manage → Create new sink, type Webhook, method POST, and paste the ingress URL as the destination.',
      'Enter the account’s Auth Token here as the provider secret, then subscribe the sink to the events you want.',
    ],
    limitation: 'Voice and Messaging webhooks post form bodies: their signature verifies, then the JSON-only ingress answers 400. Use Event Streams (JSON).',
  },
  calendly: {
    id: 'calendly',
    displayName: 'Calendly',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'event' }] }], source: 'https://developer.calendly.com/docs/api-guides/trigger-automations-with-other-apps-when-invitees-schedule-or-cancel-events' },
    signatureHeaders: ['Calendly-Webhook-Signature'],
    algorithm: 'HMAC-SHA256 of `t.body`, hex',
    deliveryIdHeader: null,
    timestampToleranceSeconds: 180,
    timestampDirection: 'past',
    timestampRule: '`t=` (unix s), at most 180 s old',
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until an invitee books or cancels.',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; you pass it to Calendly as the subscription’s signing_key',
    setup: [
      'Calendly webhooks are created through its API: POST /webhook_subscriptions with "url": the ingress URL, your events and scope, and "signing_key": the secret shown after creation.',
    ],
  },
  typeform: {
    id: 'typeform',
    displayName: 'Typeform',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'event_type' }] }], source: 'https://www.typeform.com/developers/webhooks/example-payload/' },
    signatureHeaders: ['Typeform-Signature'],
    algorithm: 'HMAC-SHA256 of the body, base64, `sha256=` prefix',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until a response is submitted; the webhook’s “Send test request” sends one at once.',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; Typeform lets you choose it',
    setup: [
      'In the form, open Connect → Webhooks → Add a webhook and paste the ingress URL.',
      'Edit the webhook, paste the secret shown after creation into Secret, save, and switch the webhook on.',
    ],
  },
  vercel: {
    id: 'vercel',
    displayName: 'Vercel',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }] }], source: 'https://vercel.com/docs/webhooks/webhooks-api' },
    signatureHeaders: ['x-vercel-signature'],
    algorithm: 'HMAC-SHA1 of the body, hex',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until a selected event (a deployment, a project change) happens.',
    secretSource: 'provider',
    secretHint: 'the webhook secret Vercel shows once after you create the webhook',
    setup: [
      'In Vercel, open the team’s Settings → Webhooks, choose the events and projects, and paste the ingress URL as the Endpoint.',
      'Vercel shows the webhook’s secret once after creation: enter it here as the provider secret.',
    ],
  },
  gitea: {
    id: 'gitea',
    displayName: 'Gitea / Forgejo',
    eventType: {
      kind: 'rules',
      rules: [
        { parts: [{ header: 'X-Gitea-Event' }, { body: 'action' }] },
        { parts: [{ header: 'X-Forgejo-Event' }, { body: 'action' }] },
        { parts: [{ header: 'X-Gogs-Event' }, { body: 'action' }] },
      ],
      source: 'https://docs.gitea.com/features/webhooks ; go-gitea/gitea services/webhook/deliver.go',
    },
    signatureHeaders: ['X-Gitea-Signature', 'X-Forgejo-Signature', 'X-Hub-Signature-256', 'X-Hub-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex (`X-Forgejo-Signature` or `X-Gitea-Signature`)',
    deliveryIdHeader: 'X-Gitea-Delivery',
    deliveryIdFallbackHeaders: ['X-Forgejo-Delivery'],
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until an event; the webhook’s “Test Delivery” button sends a push event at once.',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; Gitea and Forgejo let you choose it',
    setup: [
      'In the repository (or organization), open Settings → Webhooks → Add Webhook → Gitea (or Forgejo).',
      'Target URL: the ingress URL. HTTP method: POST. POST content type: application/json. Secret: the secret shown after creation.',
    ],
  },
  bitbucket: {
    id: 'bitbucket',
    displayName: 'Bitbucket',
    eventType: { kind: 'rules', rules: [{ parts: [{ header: 'X-Event-Key' }] }], source: 'https://support.atlassian.com/bitbucket-cloud/docs/event-payloads/' },
    signatureHeaders: ['X-Hub-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex, `sha256=` prefix',
    deliveryIdHeader: 'X-Request-UUID',
    // Bitbucket Data Center names it X-Request-Id.
    deliveryIdFallbackHeaders: ['X-Request-Id'],
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until a selected trigger (a push, a pull request) fires.',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; Bitbucket lets you paste it',
    setup: [
      'In the repository, open Repository settings → Webhooks → Add webhook.',
      'URL: the ingress URL. Secret: the secret shown after creation. Choose the triggers and save.',
    ],
  },
  jira: {
    id: 'jira',
    displayName: 'Jira (admin webhooks)',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'webhookEvent' }] }], source: 'https://developer.atlassian.com/cloud/jira/platform/webhooks/' },
    signatureHeaders: ['X-Hub-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex, `sha256=` prefix',
    deliveryIdHeader: 'X-Atlassian-Webhook-Identifier',
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until a selected issue event happens.',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; Jira lets you paste it',
    setup: [
      'In Jira, open Settings → System → WebHooks → Create a WebHook.',
      'URL: the ingress URL. Secret: the secret shown after creation. Choose the events and save.',
    ],
  },
  intercom: {
    id: 'intercom',
    displayName: 'Intercom',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'topic' }] }], source: 'https://developers.intercom.com/docs/references/2.5/webhooks/webhook-models' },
    signatureHeaders: ['X-Hub-Signature'],
    algorithm: 'HMAC-SHA1 of the body, hex, `sha1=` prefix; key = the app’s client secret',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'A ping notification when you save the endpoint (or press “Send a test request”).',
    secretSource: 'provider',
    secretHint: 'your app’s client secret (Developer Hub → your app → Basic information)',
    setup: [
      'Enter your app’s client secret here first (Developer Hub → your app → Basic information), so Intercom’s ping verifies.',
      'In the Developer Hub, open your app → Webhooks, paste the ingress URL as the endpoint and choose the topics.',
    ],
  },
  zendesk: {
    id: 'zendesk',
    displayName: 'Zendesk',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }] }], source: 'https://developer.zendesk.com/api-reference/webhooks/event-types/webhook-event-types/ (trigger and automation webhooks: none, the admin writes the body)' },
    signatureHeaders: ['X-Zendesk-Webhook-Signature', 'X-Zendesk-Webhook-Signature-Timestamp'],
    algorithm: 'HMAC-SHA256 of `timestamp + body`, base64',
    deliveryIdHeader: 'X-Zendesk-Webhook-Invocation-Id',
    timestampToleranceSeconds: null,
    timestampDirection: 'both',
    timestampRule: '`X-Zendesk-Webhook-Signature-Timestamp` (RFC 3339) is signed; Zendesk sets no window',
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until a trigger or event subscription fires. The “Test webhook” button signs with Zendesk’s static test secret, so it is rejected unless that is the secret entered here.',
    secretSource: 'provider',
    secretHint: 'the webhook’s signing secret (webhook details → Reveal secret)',
    setup: [
      'In Zendesk Admin Center, open Apps and integrations → Webhooks → Create webhook; Endpoint URL: the ingress URL, method POST, format JSON.',
      'Open the saved webhook, press Reveal secret, and enter it here as the provider secret.',
    ],
  },
  twitch: {
    id: 'twitch',
    displayName: 'Twitch EventSub',
    eventType: {
      kind: 'rules',
      rules: [
        { when: { part: { header: 'Twitch-Eventsub-Message-Type' }, equals: 'notification' }, parts: [{ body: 'subscription.type' }] },
        { parts: [{ header: 'Twitch-Eventsub-Message-Type' }] },
      ],
      source: 'https://dev.twitch.tv/docs/eventsub/handling-webhook-events/',
    },
    signatureHeaders: ['Twitch-Eventsub-Message-Signature'],
    algorithm: 'HMAC-SHA256 of `message id + timestamp + body`, hex, `sha256=` prefix',
    deliveryIdHeader: 'Twitch-Eventsub-Message-Id',
    timestampToleranceSeconds: 600,
    timestampDirection: 'past',
    timestampRule: '`Twitch-Eventsub-Message-Timestamp` (RFC 3339), at most 10 min old',
    multipleSignatures: SINGLE,
    handshake: '`webhook_callback_verification` (signed): answered 200 `text/plain` with the `challenge`',
    firstRequest: 'A signed webhook_callback_verification right after the subscription is created; Tripline answers its challenge.',
    secretSource: 'generated',
    secretHint: '10 to 100 ASCII characters; you pass it to Twitch as the subscription’s transport secret',
    setup: [
      'Create the subscription with the Helix API: POST /eventsub/subscriptions with transport {"method": "webhook", "callback": the ingress URL, "secret": the secret shown after creation}.',
      'Twitch verifies the callback at once; Tripline answers the challenge and the subscription becomes enabled.',
    ],
  },
  zoom: {
    id: 'zoom',
    displayName: 'Zoom',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'event' }] }], source: 'https://developers.zoom.us/docs/api/webhooks/' },
    signatureHeaders: ['x-zm-signature', 'x-zm-request-timestamp'],
    algorithm: 'HMAC-SHA256 of `v0:timestamp:body`, hex, `v0=` prefix; key = the Secret Token',
    deliveryIdHeader: null,
    timestampToleranceSeconds: null,
    timestampDirection: 'both',
    timestampRule: '`x-zm-request-timestamp` (unix s) is signed; Zoom sets no window',
    multipleSignatures: SINGLE,
    handshake: '`endpoint.url_validation` (signed): answered 200 JSON `{plainToken, encryptedToken}`',
    firstRequest: 'An endpoint.url_validation request when you press Validate; Tripline answers it.',
    secretSource: 'provider',
    secretHint: 'the app’s Secret Token (App Marketplace → your app → Features → Access)',
    setup: [
      'In the Zoom App Marketplace, open your app → Features → Access and enter its Secret Token here first.',
      'Under Event Subscriptions, paste the ingress URL as the Event notification endpoint URL and press Validate.',
    ],
  },
  discord: {
    id: 'discord',
    displayName: 'Discord interactions',
    eventType: {
      kind: 'rules',
      // Commands carry `data.name`, components and modals `data.custom_id`, never both.
      rules: [{ parts: [{ body: 'type', names: DISCORD_INTERACTION_TYPES }, { body: 'data.name' }, { body: 'data.custom_id' }] }],
      source: 'https://discord.com/developers/docs/interactions/receiving-and-responding',
    },
    signatureHeaders: ['X-Signature-Ed25519', 'X-Signature-Timestamp'],
    algorithm: 'Ed25519 over `timestamp + body`, hex; key = the application’s public key',
    deliveryIdHeader: null,
    timestampToleranceSeconds: null,
    timestampDirection: 'both',
    timestampRule: '`X-Signature-Timestamp` is signed; Discord sets no window',
    multipleSignatures: SINGLE,
    handshake: 'PING (type 1): answered 200 JSON `{"type":1}`; the deliberately invalid signatures Discord also sends get 401',
    firstRequest: 'A PING and some deliberately mis-signed requests when you save the Interactions Endpoint URL; Tripline answers the PING and refuses the rest.',
    secretSource: 'provider',
    secretHint: 'the application’s Public Key, 64 hexadecimal characters (Developer Portal → General Information)',
    secretFormat: { pattern: /^[0-9a-fA-F]{64}$/, message: 'A Discord public key is 64 hexadecimal characters' },
    setup: [
      'In the Discord Developer Portal, open your application → General Information and enter its Public Key here.',
      'Paste the ingress URL as the Interactions Endpoint URL and save.',
    ],
    limitation: 'Commands and components expect an interaction response in the HTTP answer; Tripline answers 202, so Discord shows “interaction failed” to the user while the delivery is still logged.',
  },
  notion: {
    id: 'notion',
    displayName: 'Notion',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'type' }] }], source: 'https://developers.notion.com/reference/webhooks-events-delivery' },
    signatureHeaders: ['X-Notion-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex, `sha256=` prefix; key = the verification token',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: 'unsigned `verification_token` POST: answered 200, the token stored as the provider secret and shown once to paste back',
    firstRequest: 'An unsigned request carrying the verification token; Tripline stores it and shows it on this page once.',
    secretSource: 'handshake',
    secretHint: 'the verification_token Notion sends first (secret_…); Tripline captures it',
    setup: [
      'In your Notion integration’s settings, open Webhooks → Create a subscription and paste the ingress URL.',
      'Notion sends a verification token; it appears on this page once. Paste it into Notion’s Verify dialog.',
    ],
  },
  airtable: {
    id: 'airtable',
    displayName: 'Airtable',
    eventType: {
      kind: 'none',
      reason: 'a notification says only that a base changed (`base`, `webhook`, `timestamp`); the changes are fetched from Airtable’s API',
      source: 'https://airtable.com/developers/web/api/webhooks-overview',
    },
    signatureHeaders: ['X-Airtable-Content-MAC'],
    algorithm: 'HMAC-SHA256 of the body, hex, `hmac-sha256=` prefix; key = base64-decoded `macSecretBase64`',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'A notification (base, webhook and timestamp only) each time the watched data changes; the changes themselves are fetched from Airtable’s API.',
    secretSource: 'provider',
    secretHint: 'macSecretBase64 from Airtable’s create-webhook response, pasted as is (base64)',
    secretFormat: { pattern: /^[A-Za-z0-9+/]{16,}={0,2}$/, message: 'Airtable’s macSecretBase64 is base64' },
    setup: [
      'Create the webhook with Airtable’s API: POST /v0/bases/{baseId}/webhooks with "notificationUrl": the ingress URL.',
      'The response’s macSecretBase64 is shown only then: enter it here as the provider secret.',
    ],
  },
  asana: {
    id: 'asana',
    displayName: 'Asana',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'events.0.resource.resource_type' }, { body: 'events.0.action' }] }], source: 'https://developers.asana.com/docs/webhooks-guide (a batch: the first event names the delivery)' },
    signatureHeaders: ['X-Hook-Signature', 'X-Hook-Secret'],
    algorithm: 'HMAC-SHA256 of the body, hex; key = the `X-Hook-Secret` of the handshake',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: '`X-Hook-Secret` POST: answered 200 echoing the header; the secret is stored as the provider secret',
    firstRequest: 'A handshake carrying X-Hook-Secret while Asana creates the webhook; Tripline echoes it and keeps it as the secret.',
    secretSource: 'handshake',
    secretHint: 'the X-Hook-Secret Asana sends in its handshake; Tripline captures it',
    setup: [
      'Create the webhook with Asana’s API: POST /webhooks with "resource" and "target": the ingress URL.',
      'Asana performs the handshake during that call; Tripline answers it and stores the secret, so the call succeeds.',
    ],
  },
  dropbox: {
    id: 'dropbox',
    displayName: 'Dropbox',
    eventType: {
      kind: 'none',
      reason: 'a notification lists only the accounts that changed (`list_folder.accounts`); the changes are fetched from Dropbox’s API',
      source: 'https://www.dropbox.com/developers/reference/webhooks',
    },
    signatureHeaders: ['X-Dropbox-Signature'],
    algorithm: 'HMAC-SHA256 of the body, hex; key = the app secret',
    deliveryIdHeader: null,
    // Every change to an account sends the same body: a body hash would log the second change a Duplicate.
    bodyIsNoIdentity: true,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: 'GET `?challenge=`: answered 200 `text/plain` (nosniff) with the challenge',
    firstRequest: 'A GET verification request with a challenge when you add the URI; Tripline echoes it.',
    secretSource: 'provider',
    secretHint: 'the app secret (App Console → your app → Settings)',
    setup: [
      'In the Dropbox App Console, open your app → Settings, copy the App secret and enter it here.',
      'Under Webhooks, add the ingress URL as a Webhook URI; Dropbox verifies it at once.',
    ],
  },
  mailgun: {
    id: 'mailgun',
    displayName: 'Mailgun',
    eventType: { kind: 'rules', rules: [{ parts: [{ body: 'event-data.event' }, { body: 'event-data.severity' }] }], source: 'https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/webhook-payloads' },
    signatureHeaders: [],
    algorithm: 'HMAC-SHA256 of `timestamp + token` from the body’s `signature` object, hex',
    deliveryIdHeader: null,
    // The signature's one-time token: a signature copied from a logged delivery onto a forged event is a Duplicate.
    deliveryIdBodyField: 'signature.token',
    timestampToleranceSeconds: 86_400,
    timestampDirection: 'past',
    timestampRule: '`signature.timestamp` in the body is signed; Mailgun sets no window, Tripline refuses one over a day old (the signature covers no event data, so an old one must not be reusable)',
    multipleSignatures: SINGLE,
    handshake: null,
    firstRequest: 'Nothing until a selected event; “Test webhook” sends one at once.',
    secretSource: 'provider',
    secretHint: 'the HTTP webhook signing key (Sending → Webhooks)',
    setup: [
      'In Mailgun, open Sending → Webhooks, copy the HTTP webhook signing key and enter it here.',
      'Add a webhook for the events you want with the ingress URL as its URL.',
    ],
    limitation: 'Mailgun’s signature covers only the timestamp and token, not the event data; legacy (form-encoded) webhooks get 400.',
  },
  'microsoft-graph': {
    id: 'microsoft-graph',
    displayName: 'Microsoft Graph change notifications',
    eventType: {
      kind: 'rules',
      rules: [{ parts: [{ body: 'value.0.lifecycleEvent' }] }, { parts: [{ body: 'value.0.changeType' }] }],
      source: 'https://learn.microsoft.com/en-us/graph/api/resources/changenotification ; https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events (a batch: the first notification names the delivery)',
    },
    signatureHeaders: [],
    algorithm: 'no signature: each notification in the body’s `value` array carries the subscription’s `clientState`, compared exactly with the secret',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: 'a batch of notifications: every one’s `clientState` must match',
    handshake: 'validation POST `?validationToken=`: answered 200 `text/plain` with the token URL-decoded, HTML-escaped',
    firstRequest: 'A validation POST carrying ?validationToken= while Graph creates or renews the subscription; Tripline answers it at once (Graph waits 10 s).',
    secretSource: 'generated',
    secretHint: 'the subscription’s clientState: Tripline generates 43 characters, and Graph takes at most 128',
    setup: [
      'Create the subscription with Graph’s API: POST https://graph.microsoft.com/v1.0/subscriptions with "notificationUrl" (and, for lifecycle notifications, "lifecycleNotificationUrl"): the ingress URL, and "clientState": the secret shown after creation.',
      'Graph validates the URL during that call and at each renewal; Tripline answers, so the call succeeds. Every notification then carries the clientState, which Tripline checks.',
    ],
    docs: ['https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks', 'https://learn.microsoft.com/en-us/graph/api/resources/subscription', 'https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events'],
    limitation:
      'The clientState is the credential and comes back inside every notification’s body: the log stores and runs receive the body with each clientState replaced by "[redacted]" (all else byte for byte). The validationTokens (JWTs) of notifications with resource data are not checked.',
  },
  okta: {
    id: 'okta',
    displayName: 'Okta event hooks',
    eventType: {
      kind: 'rules',
      rules: [{ parts: [{ body: 'data.events.0.eventType' }] }, { parts: [{ body: 'eventType' }] }],
      source: 'https://developer.okta.com/docs/concepts/event-hooks/ (a batch: the first event names the delivery; the envelope’s own `eventType` is com.okta.event_hook)',
    },
    signatureHeaders: ['Authorization'],
    algorithm: 'no signature: `Authorization` carries the hook’s authentication secret verbatim, compared exactly',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: 'one-time GET with `X-Okta-Verification-Challenge`: answered 200 JSON `{"verification": …}` only when its `Authorization` carries the secret',
    firstRequest: 'A one-time verification GET when you verify the hook; it carries the secret too, and Tripline answers only then.',
    secretSource: 'generated',
    secretHint: 'any high-entropy string; Okta sends it back verbatim in the Authorization header',
    setup: [
      'In the Okta Admin Console, open Workflow → Event Hooks → Create Event Hook; Endpoint URL: the ingress URL.',
      'Authentication field: Authorization. Authentication secret: the secret shown after creation. Choose the events, save, then verify the hook (Okta waits 3 s for the answer).',
    ],
    docs: ['https://developer.okta.com/docs/concepts/event-hooks/', 'https://support.okta.com/help/s/article/Unable-to-verify-event-hook-Hook-hook-name-execution-failed'],
  },
  meta: {
    id: 'meta',
    displayName: 'Meta (WhatsApp, Messenger, Instagram)',
    eventType: {
      kind: 'rules',
      rules: [{ parts: [{ body: 'object' }, { body: 'entry.0.changes.0.field' }] }],
      source: 'https://developers.facebook.com/docs/graph-api/webhooks/getting-started (`object`, then the first entry’s `changes[].field`; Messenger’s `entry[].messaging` names no field)',
    },
    signatureHeaders: ['X-Hub-Signature-256'],
    algorithm: 'HMAC-SHA256 of the body, hex, `sha256=` prefix; key = the app secret',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: 'GET `hub.mode=subscribe`: answered 200 `text/plain` with `hub.challenge` when `hub.verify_token` is the webhook’s verify token (shown on its page), else 401',
    firstRequest: 'A verification GET when you press Verify and save; Tripline answers it when it carries this webhook’s verify token.',
    secretSource: 'provider',
    secretHint: 'the app’s App Secret (App Dashboard → App settings → Basic)',
    setup: [
      'In the Meta App Dashboard, open App settings → Basic, copy the App Secret and enter it here.',
      'Once the secret is in, the webhook’s page shows its verify token. Under Webhooks (WhatsApp: WhatsApp → Configuration), paste the ingress URL as the Callback URL and the verify token as the Verify token, press Verify and save, then subscribe to the fields you want.',
    ],
    docs: ['https://developers.facebook.com/docs/graph-api/webhooks/getting-started', 'https://developers.facebook.com/docs/messenger-platform/webhook-reference'],
  },
  x: {
    id: 'x',
    displayName: 'X (Twitter) Account Activity',
    eventType: {
      kind: 'rules',
      rules: [
        {
          parts: [
            {
              bodyKey: [
                'tweet_create_events',
                'tweet_delete_events',
                'favorite_events',
                'follow_events',
                'unfollow_events',
                'block_events',
                'unblock_events',
                'mute_events',
                'unmute_events',
                'user_event',
                'direct_message_events',
                'direct_message_indicate_typing_events',
                'direct_message_mark_read_events',
              ],
            },
          ],
        },
      ],
      source: 'https://developer.x.com/en/docs/x-api/enterprise/account-activity-api/guides/account-activity-data-objects (the event is the top-level key that holds it)',
    },
    signatureHeaders: ['X-Twitter-Webhooks-Signature'],
    algorithm: 'HMAC-SHA256 of the body, base64, `sha256=` prefix; key = the consumer secret',
    deliveryIdHeader: null,
    ...UNTIMED,
    multipleSignatures: SINGLE,
    handshake: 'CRC GET `?crc_token=` (at registration, then hourly): answered 200 JSON `{"response_token": "sha256=…"}`, only for a token that cannot be a JSON body',
    firstRequest: 'A challenge-response check (GET with crc_token) when you register the webhook, then about hourly; Tripline answers each.',
    secretSource: 'provider',
    secretHint: 'the app’s consumer secret (API Key Secret: Developer Portal → your app → Keys and tokens)',
    setup: [
      'In the X Developer Portal, open your app → Keys and tokens, copy the API Key Secret (consumer secret) and enter it here.',
      'Register the webhook with POST /2/webhooks and "url": the ingress URL; X checks it at once (CRC), Tripline answers, and you then subscribe the accounts.',
    ],
    docs: ['https://docs.x.com/x-api/webhooks/quickstart', 'https://developer.x.com/en/docs/x-api/enterprise/account-activity-api/guides/securing-webhooks'],
  },
} as const satisfies Record<string, SchemeInfo>;

export type SchemeId = keyof typeof schemes;

export const schemeIds = Object.keys(schemes) as SchemeId[];

export function isSchemeId(value: string): value is SchemeId {
  return Object.hasOwn(schemes, value);
}

export function getScheme(id: string): SchemeInfo | undefined {
  return isSchemeId(id) ? schemes[id] : undefined;
}

/** A webhook's own Event type setting (bearer and URL token webhooks): a header name or a dot path into the body, at most one set. */
export type EventTypeSetting = { eventTypeHeader?: string | null; eventTypePath?: string | null };

// Each header a provider scheme signs with, by lowercase name, with the first scheme that uses it:
// the log stores these redacted for webhooks of that scheme, whatever their name.
const SIGNING_HEADERS = new Map<string, string>();
for (const scheme of Object.values(schemes) as SchemeInfo[]) {
  for (const header of scheme.signatureHeaders) if (!SIGNING_HEADERS.has(header.toLowerCase())) SIGNING_HEADERS.set(header.toLowerCase(), scheme.displayName);
}

/** The display name of the (first) provider scheme that signs deliveries with this header, or undefined. */
export function signingScheme(header: string): string | undefined {
  return SIGNING_HEADERS.get(header.toLowerCase());
}

/**
 * Why a request header may not be a webhook's Event type header, or null.
 * A delivery's event type is shown to every member of the factory, viewers
 * included, and handed to each run (RUN_EVENT_TYPE), so a header holding a
 * credential would copy it there: `Authorization` would show every viewer
 * the webhook's bearer token. The names refused are those the delivery log
 * stores redacted, which header filters refuse too (redactedHeaderReason in
 * lib/ingress/filters/headers.ts): a name suggesting a credential, or a
 * header a provider scheme signs with. The schemas refuse such a setting
 * when it is written (dashboard, API, definition files); eventTypeSourceOf
 * ignores one stored before they did.
 */
export function eventTypeHeaderRefusal(name: string): string | null {
  const lower = name.trim().toLowerCase();
  const why = 'and the event type is shown to every member of the factory, viewers included: choose a header that names the kind of event, such as X-Event-Type';
  if (looksSensitive(lower)) {
    return `"${lower}" cannot be the event type header: its name suggests a credential (authorization, cookie, token, secret, signature…), ${why}`;
  }
  const scheme = signingScheme(lower);
  if (scheme) return `"${lower}" cannot be the event type header: ${scheme} signs deliveries with it, so the delivery log stores it redacted, ${why}`;
  return null;
}

/**
 * Where a webhook's deliveries name their event type: its provider scheme's
 * source when it verifies one; otherwise its Event type setting, or none. A
 * setting that names a credential header (stored before the schemas refused
 * it) gives none: its deliveries are accepted as always, without a type.
 */
export function eventTypeSourceOf(webhook: { authMode: string; signatureScheme: string | null } & EventTypeSetting): EventTypeSource | null {
  if (webhook.authMode === 'signature') return webhook.signatureScheme ? (getScheme(webhook.signatureScheme)?.eventType ?? null) : null;
  if (webhook.eventTypeHeader) {
    if (eventTypeHeaderRefusal(webhook.eventTypeHeader)) return null;
    return { kind: 'rules', rules: [{ parts: [{ header: webhook.eventTypeHeader }] }], source: 'the webhook’s Event type setting' };
  }
  if (webhook.eventTypePath) return { kind: 'rules', rules: [{ parts: [{ body: webhook.eventTypePath }] }], source: 'the webhook’s Event type setting' };
  return null;
}
