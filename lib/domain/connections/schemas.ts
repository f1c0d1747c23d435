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

/**
 * The signature scheme each kind's deliveries carry, client-safe, for every
 * kind (the provider modules, server-only, exist only for kinds that can be
 * connected): the dashboard shows a kind that cannot be connected yet on the
 * page of a webhook of its scheme.
 */
export const PROVIDER_SCHEME: Record<(typeof CONNECTION_PROVIDERS)[number], string> = {
  github_repository: 'github',
  github_organization: 'github',
  gitlab_project: 'gitlab',
  stripe_account: 'stripe',
};

/** What a kind of connection targets, for people: the choices and examples of the dashboard's form. */
export const PROVIDER_TARGET: Record<(typeof CONNECTION_PROVIDERS)[number], { kind: string; label: string; placeholder: string; events: string; selfHosted: string }> = {
  github_repository: { kind: 'Repository', label: 'Repository', placeholder: 'owner/repo', events: 'push, issues, pull_request', selfHosted: 'GitHub Enterprise Server: https://HOST/api/v3' },
  github_organization: { kind: 'Organization', label: 'Organization', placeholder: 'the organization’s login', events: 'push, issues, pull_request', selfHosted: 'GitHub Enterprise Server: https://HOST/api/v3' },
  gitlab_project: { kind: 'Project', label: 'Project', placeholder: 'group/project, or its ID', events: 'push, issue, merge_request', selfHosted: 'self-managed GitLab: https://HOST/api/v4' },
  stripe_account: { kind: 'Account', label: 'Account', placeholder: 'self, or acct_… for a connected account', events: 'invoice.paid, customer.created', selfHosted: '' },
};

export const MAX_EVENT_TYPES = 50;

const eventTypeSchema = z.string().trim().regex(/^[a-z_*][a-z0-9_.]*$/, 'Use event names such as push or issues').max(100);

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
  eventTypes: z.array(eventTypeSchema).max(MAX_EVENT_TYPES, `Use at most ${MAX_EVENT_TYPES} event types`).default([]),
};

export const connectWebhookSchema = z.object(connectionSettingsShape);
export type ConnectWebhookInput = z.input<typeof connectWebhookSchema>;
export type ConnectionSettings = z.output<typeof connectWebhookSchema>;

/** The API base URL a connection uses: the provider's public API unless given, without trailing slashes. */
export const apiBaseUrlOf = (provider: (typeof CONNECTION_PROVIDERS)[number], apiBaseUrl: string | undefined) =>
  (apiBaseUrl || DEFAULT_API_BASE_URL[provider]).replace(/\/+$/, '');

/**
 * The dashboard's form: the same fields, the event types written as one
 * comma-separated line; a bad one is named in one message next to the field.
 */
export const connectWebhookFormSchema = connectWebhookSchema.extend({
  eventTypes: z
    .string()
    .max(MAX_EVENT_TYPES * 101, 'The list is too long')
    .transform((text, ctx) => {
      const types = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
      if (types.length > MAX_EVENT_TYPES) {
        ctx.addIssue({ code: 'custom', message: `Use at most ${MAX_EVENT_TYPES} event types` });
        return z.NEVER;
      }
      const bad = types.filter((type) => !eventTypeSchema.safeParse(type).success);
      if (bad.length === 0) return types;
      ctx.addIssue({ code: 'custom', message: `${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ` (and ${bad.length - 3} more)` : ''}: use event names such as push or issues` });
      return z.NEVER;
    }),
});
export type ConnectWebhookFormInput = z.input<typeof connectWebhookFormSchema>;

export const disconnectWebhookSchema = z.object({
  /** Delete the provider-side hook too (otherwise it stays and keeps sending). */
  deleteProviderHook: z.boolean().default(false),
});
export type DisconnectWebhookInput = z.input<typeof disconnectWebhookSchema>;
