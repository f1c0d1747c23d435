// Provider signature schemes: one registry with each scheme's metadata. The
// identifiers are the allowed values of a webhook's `signatureScheme`.
// Verification lives beside this file (one file per scheme, see the ingress).

export type SecretSource =
  /** We generate the secret and the admin gives it to the sender (blank secret at creation). */
  | 'generated'
  /** The provider issues the secret, often only after it is given the URL: entered in a second step. */
  | 'provider';

export type SchemeInfo = {
  id: string;
  displayName: string;
  /** Headers that carry the signature (and timestamp), as the provider names them. */
  signatureHeaders: string[];
  /** The provider's own delivery-ID header, used for delivery identity and dedup. */
  deliveryIdHeader: string | null;
  /** Maximum signature age in seconds, when the provider signs a timestamp; null when it does not. */
  timestampToleranceSeconds: number | null;
  /** Who creates the secret when the admin leaves it blank. */
  secretSource: SecretSource;
  /** What the secret looks like, to help the admin paste the right thing. */
  secretHint: string;
  /** Where the admin puts our URL and the secret on the provider's side. */
  setup: string[];
};

export const schemes = {
  'standard-webhooks': {
    id: 'standard-webhooks',
    displayName: 'Standard Webhooks (and Svix)',
    signatureHeaders: ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'svix-id', 'svix-timestamp', 'svix-signature'],
    deliveryIdHeader: 'webhook-id',
    timestampToleranceSeconds: 300,
    secretSource: 'generated',
    secretHint: 'whsec_ followed by base64, as issued by a Standard Webhooks or Svix sender',
    setup: [
      'Leave the secret blank and Tripline generates a whsec_ secret for you to give the sender, or paste the whsec_ secret your sender issued.',
      'Configure the sender to POST to the ingress URL and sign with that secret; webhook-* and Svix-compatible svix-* headers both work.',
    ],
  },
  github: {
    id: 'github',
    displayName: 'GitHub',
    signatureHeaders: ['X-Hub-Signature-256'],
    deliveryIdHeader: 'X-GitHub-Delivery',
    timestampToleranceSeconds: null,
    secretSource: 'generated',
    secretHint: 'any high-entropy string; GitHub lets you choose it',
    setup: [
      'In the repository or organization, open Settings → Webhooks → Add webhook.',
      'Payload URL: the ingress URL. Content type: application/json. Secret: the secret shown after creation.',
      'GitHub sends a ping event first; it shows up in the delivery log.',
    ],
  },
  stripe: {
    id: 'stripe',
    displayName: 'Stripe',
    signatureHeaders: ['Stripe-Signature'],
    deliveryIdHeader: null,
    timestampToleranceSeconds: 300,
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
    signatureHeaders: ['X-Slack-Signature', 'X-Slack-Request-Timestamp'],
    deliveryIdHeader: null,
    timestampToleranceSeconds: 300,
    secretSource: 'provider',
    secretHint: 'the app’s Signing Secret (Basic Information → App Credentials)',
    setup: [
      'In your Slack app’s settings, copy the Signing Secret from Basic Information and enter it here.',
      'Under Event Subscriptions, paste the ingress URL as the Request URL.',
    ],
  },
  linear: {
    id: 'linear',
    displayName: 'Linear',
    signatureHeaders: ['Linear-Signature'],
    deliveryIdHeader: 'Linear-Delivery',
    timestampToleranceSeconds: 60,
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
    signatureHeaders: ['X-Shopify-Hmac-Sha256'],
    deliveryIdHeader: 'X-Shopify-Webhook-Id',
    timestampToleranceSeconds: null,
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
    signatureHeaders: ['X-Gitlab-Token'],
    deliveryIdHeader: 'X-Gitlab-Event-UUID',
    timestampToleranceSeconds: null,
    secretSource: 'generated',
    secretHint: 'any high-entropy string; GitLab sends it back verbatim as the secret token',
    setup: [
      'In the project, open Settings → Webhooks → Add new webhook.',
      'URL: the ingress URL. Secret token: the secret shown after creation.',
    ],
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
