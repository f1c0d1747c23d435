import { z } from 'zod';
import { secretNameSchema } from '@/lib/domain/secrets/schemas';

// A connection's settings, shared by the API (and later the dashboard's form
// and the CLI). The credential is named by team secret, never given inline.

export const CONNECTION_PROVIDERS = ['github_repository', 'github_organization', 'gitlab_project', 'stripe_account'] as const;
/** The providers whose adapter exists today; the others are refused with a clear message. */
export const SUPPORTED_PROVIDERS = ['github_repository', 'github_organization'] as const;

export const DEFAULT_API_BASE_URL: Record<(typeof CONNECTION_PROVIDERS)[number], string> = {
  github_repository: 'https://api.github.com',
  github_organization: 'https://api.github.com',
  gitlab_project: 'https://gitlab.com/api/v4',
  stripe_account: 'https://api.stripe.com',
};

type Provider = (typeof CONNECTION_PROVIDERS)[number];

/** The signature scheme a provider's deliveries carry: a connection needs a webhook that verifies it. */
export const PROVIDER_SCHEME: Record<Provider, string> = {
  github_repository: 'github',
  github_organization: 'github',
  gitlab_project: 'gitlab',
  stripe_account: 'stripe',
};

export const PROVIDER_NAME: Record<Provider, string> = {
  github_repository: 'GitHub',
  github_organization: 'GitHub',
  gitlab_project: 'GitLab',
  stripe_account: 'Stripe',
};

/** What a provider's connection targets, for people: the choices of the dashboard's form. */
export const PROVIDER_TARGET: Record<Provider, { kind: string; label: string; placeholder: string }> = {
  github_repository: { kind: 'Repository', label: 'Repository', placeholder: 'owner/repo' },
  github_organization: { kind: 'Organization', label: 'Organization', placeholder: 'the organization’s login' },
  gitlab_project: { kind: 'Project', label: 'Project', placeholder: 'group/project' },
  stripe_account: { kind: 'Account', label: 'Account', placeholder: 'acct_…' },
};

export const MAX_EVENT_TYPES = 50;

const eventTypeSchema = z.string().trim().regex(/^[a-z_*][a-z0-9_.]*$/, 'Use event names such as push or issues').max(100);

export const connectWebhookSchema = z.object({
  provider: z.enum(CONNECTION_PROVIDERS, { error: `Choose one of ${CONNECTION_PROVIDERS.join(', ')}` }),
  apiBaseUrl: z.string().trim().max(500, 'Use at most 500 characters').optional(),
  credentialSecretName: secretNameSchema,
  target: z.string().trim().min(1, 'Enter the repository (owner/repo), the organization or the project').max(200, 'Use at most 200 characters'),
  eventTypes: z.array(eventTypeSchema).max(MAX_EVENT_TYPES, `Use at most ${MAX_EVENT_TYPES} event types`).default([]),
});
export type ConnectWebhookInput = z.input<typeof connectWebhookSchema>;

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
