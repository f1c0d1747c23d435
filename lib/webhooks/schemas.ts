import { z } from 'zod';
import { secretNameSchema } from '@/lib/secrets/schemas';
import { MAX_EXPECTED_INTERVAL_SECONDS, MIN_EXPECTED_INTERVAL_SECONDS } from '@/lib/health/classify';
import { schemeIds, type SchemeId } from '@/lib/signatures/registry';

// A webhook's name is also its definition file's name (webhooks/<name>.yaml),
// so it is kept to characters that are safe in file names everywhere.
export const webhookNameSchema = z
  .string()
  .trim()
  .min(1, 'Enter a name')
  .max(64, 'Use at most 64 characters')
  .regex(
    /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/,
    'Use lowercase letters, digits, and single hyphens or underscores between them (for example "github-deploys")',
  );

/** docs/decisions/0017-webhook-limit.md. Applies to creation, and to a set of definition files. */
export const MAX_WEBHOOKS_PER_FACTORY = 20;

export const authModes = ['token', 'url_token', 'signature'] as const;
export type AuthMode = (typeof authModes)[number];

export const authModeLabels: Record<AuthMode, string> = {
  token: 'Bearer token',
  url_token: 'URL token',
  signature: 'Provider signature',
};

export const authModeSchema = z.enum(authModes, { error: 'Choose token, url_token or signature' });

export const signatureSchemeSchema = z.enum(schemeIds as [SchemeId, ...SchemeId[]], {
  error: `Choose one of: ${schemeIds.join(', ')}`,
});

// An HTTP header name (RFC 9110 token), stored lowercased.
export const deliveryIdHeaderSchema = z
  .string()
  .trim()
  .max(100, 'Use at most 100 characters')
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'Enter a header name such as X-Request-Id, without a colon or spaces')
  .transform((header) => header.toLowerCase());

const blankToUndefined = (value: unknown) =>
  value === null || (typeof value === 'string' && value.trim() === '') ? undefined : value;

export const createWebhookSchema = z
  .object({
    name: webhookNameSchema,
    authMode: z.preprocess(blankToUndefined, authModeSchema.default('token')),
    signatureScheme: z.preprocess(blankToUndefined, signatureSchemeSchema.optional()),
    providerSecret: z.preprocess(blankToUndefined, z.string().max(4096, 'Use at most 4,096 characters').optional()),
    secretName: z.preprocess(blankToUndefined, secretNameSchema.optional()),
    deliveryIdHeader: z.preprocess(blankToUndefined, deliveryIdHeaderSchema.optional()),
  })
  .superRefine((input, ctx) => {
    if (input.authMode === 'signature' && !input.signatureScheme) {
      ctx.addIssue({ code: 'custom', path: ['signatureScheme'], message: 'Choose the provider that signs the requests' });
    }
    if (input.authMode !== 'signature' && input.signatureScheme) {
      ctx.addIssue({ code: 'custom', path: ['signatureScheme'], message: 'A provider scheme only applies to provider signature webhooks' });
    }
    if (input.authMode !== 'signature' && input.providerSecret) {
      ctx.addIssue({
        code: 'custom',
        path: ['providerSecret'],
        message: 'Tripline generates bearer and URL tokens; a provider secret only applies to provider signature webhooks',
      });
    }
  });
export type CreateWebhookInput = z.input<typeof createWebhookSchema>;

/** Seconds within which an accepted delivery is expected (lib/health: past it the webhook is Silent); null removes it. */
export const expectedIntervalSchema = z
  .number({ error: 'Enter the interval in seconds, or null for none' })
  .int('Enter a whole number of seconds')
  .min(MIN_EXPECTED_INTERVAL_SECONDS, `Use at least ${MIN_EXPECTED_INTERVAL_SECONDS} seconds`)
  .max(MAX_EXPECTED_INTERVAL_SECONDS, `Use at most ${MAX_EXPECTED_INTERVAL_SECONDS} seconds (30 days)`)
  .nullable();

export const updateWebhookSchema = z
  .object({
    enabled: z.boolean({ error: 'enabled must be true or false' }).optional(),
    expectedIntervalSeconds: expectedIntervalSchema.optional(),
  })
  .strict()
  .refine((input) => input.enabled !== undefined || input.expectedIntervalSeconds !== undefined, { error: 'Send enabled, expectedIntervalSeconds or both' });

/** The dashboard's expected-interval field: a number and a unit; empty removes the expectation. */
export const expectedIntervalFormSchema = z
  .object({
    amount: z.string().trim().regex(/^(\d{1,6})?$/, 'Enter a whole number, or leave empty for no expectation'),
    unit: z.enum(['minutes', 'hours', 'days'], { error: 'Choose minutes, hours or days' }),
  })
  .transform((input, ctx) => {
    if (input.amount === '') return null;
    const seconds = Number(input.amount) * { minutes: 60, hours: 3_600, days: 86_400 }[input.unit];
    const checked = expectedIntervalSchema.safeParse(seconds);
    if (!checked.success) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'Use between 1 minute and 30 days' });
      return z.NEVER;
    }
    return checked.data;
  });
export type ExpectedIntervalFormInput = z.input<typeof expectedIntervalFormSchema>;

export const providerSecretSchema = z.object({
  secret: z.string().trim().min(1, 'Enter the secret the provider issued').max(4096, 'Use at most 4,096 characters'),
});

export const webhookUidSchema = z.object({ uid: z.string().min(1).max(64) });

/** A team secret name suggested from a webhook name: "github-deploys" -> GITHUB_DEPLOYS_WEBHOOK_SECRET. */
export function suggestSecretName(webhookName: string): string {
  const stem = webhookName.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  const base = /^[A-Z]/.test(stem) ? stem : `WEBHOOK_${stem}`;
  return `${base.slice(0, 64 - '_WEBHOOK_SECRET'.length)}_WEBHOOK_SECRET`.replace(/_+/g, '_');
}

/**
 * The suggested team secret name for a new webhook, numbered (_2, _3, ...)
 * when the plain suggestion is taken. The server names the secret with it;
 * the form shows the same name as the webhook's name is typed.
 */
export function suggestFreeSecretName(webhookName: string, taken: ReadonlySet<string>): string {
  const base = suggestSecretName(webhookName);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, 60)}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
