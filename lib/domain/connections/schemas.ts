import { z } from 'zod';
import { secretNameSchema } from '@/lib/domain/secrets/schemas';

// A connection's settings, shared by the API (and later the dashboard's form
// and the CLI). The credential is named by team secret, never given inline.

export const CONNECTION_PROVIDERS = ['github_repository', 'github_organization', 'gitlab_project', 'stripe_account'] as const;
/** The providers whose adapter exists today; the others are refused with a clear message. */
export const SUPPORTED_PROVIDERS = ['github_repository', 'github_organization', 'gitlab_project', 'stripe_account'] as const;

/** The providers' names for people, client-safe (the modules in providers/ are server-only). */
export const PROVIDER_NAME: Record<(typeof CONNECTION_PROVIDERS)[number], string> = {
  github_repository: 'GitHub',
  github_organization: 'GitHub',
  gitlab_project: 'GitLab',
  stripe_account: 'Stripe',
};

export const DEFAULT_API_BASE_URL: Record<(typeof CONNECTION_PROVIDERS)[number], string> = {
  github_repository: 'https://api.github.com',
  github_organization: 'https://api.github.com',
  gitlab_project: 'https://gitlab.com/api/v4',
  stripe_account: 'https://api.stripe.com',
};

export const MAX_EVENT_TYPES = 50;

/** The shapes of the providers' API tokens: such a value is never a team secret's name, and is never echoed back. */
const TOKEN_SHAPE = /^(gh[pousr]_|github_pat_|glpat|[rs]k_(live|test)_)/i;

/** The team secret holding the provider's API token: a name, refused when it looks like the token itself. */
export const credentialSecretNameSchema = secretNameSchema.refine(
  (name) => !TOKEN_SHAPE.test(name),
  'This looks like an API token, not the name of a team secret: keep the token in a team secret (Secrets page, `tripline secret put`) and give its name',
);

export const connectionSettingsShape = {
  provider: z.enum(CONNECTION_PROVIDERS, { error: `Choose one of ${CONNECTION_PROVIDERS.join(', ')}` }),
  apiBaseUrl: z.string().trim().max(500, 'Use at most 500 characters').optional(),
  credentialSecretName: credentialSecretNameSchema,
  target: z.string().trim().min(1, 'Enter the repository (owner/repo), the organization, the project or the Stripe account (self or acct_...)').max(200, 'Use at most 200 characters'),
  eventTypes: z
    .array(z.string().trim().regex(/^[a-z_*][a-z0-9_.]*$/, 'Use event names such as push or issues').max(100))
    .max(MAX_EVENT_TYPES, `Use at most ${MAX_EVENT_TYPES} event types`)
    .default([]),
};

export const connectWebhookSchema = z.object(connectionSettingsShape);
export type ConnectWebhookInput = z.input<typeof connectWebhookSchema>;
export type ConnectionSettings = z.output<typeof connectWebhookSchema>;

/** The API base URL a connection uses: the provider's public API unless given, without trailing slashes. */
export const apiBaseUrlOf = (provider: (typeof CONNECTION_PROVIDERS)[number], apiBaseUrl: string | undefined) =>
  (apiBaseUrl || DEFAULT_API_BASE_URL[provider]).replace(/\/+$/, '');

export const disconnectWebhookSchema = z.object({
  /** Delete the provider-side hook too (otherwise it stays and keeps sending). */
  deleteProviderHook: z.boolean().default(false),
});
export type DisconnectWebhookInput = z.input<typeof disconnectWebhookSchema>;
