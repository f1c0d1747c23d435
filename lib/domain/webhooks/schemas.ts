import { z } from 'zod';
import { unsafeText } from '@/lib/platform/http/unsafe-text';
import { secretNameSchema } from '@/lib/domain/secrets/schemas';
import { MAX_EXPECTED_INTERVAL_SECONDS, MIN_EXPECTED_INTERVAL_SECONDS } from '@/lib/domain/health/classify';
import { eventTypeHeaderRefusal, schemeIds, type SchemeId } from '@/lib/ingress/signatures/registry';
import { UNPRINTABLE } from '@/lib/ingress/signatures/event-types';
import { checkAllowlist, MAX_ALLOWLIST_RANGES, MAX_RANGE_LENGTH } from '@/lib/ingress/allowlist';
import {
  CUSTOM_RESPONSE_CONTENT_TYPES,
  CUSTOM_RESPONSE_STATUSES,
  DELIVERY_ID_PLACEHOLDER,
  MAX_CUSTOM_RESPONSE_BODY_BYTES,
  isValidJsonTemplate,
  unknownPlaceholder,
  type CustomResponse,
} from '@/lib/ingress/custom-response';

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
const headerNameSchema = (example: string) =>
  z
    .string()
    .trim()
    .max(100, 'Use at most 100 characters')
    .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, `Enter a header name such as ${example}, without a colon or spaces`)
    .transform((header) => header.toLowerCase());

export const deliveryIdHeaderSchema = headerNameSchema('X-Request-Id');

// The Event type setting of bearer and URL token webhooks (signature webhooks
// take the type from their provider scheme): a request header, or a path into
// the JSON body as lib/ingress/signatures/event-types.ts reads it. A header
// that carries a credential is refused: every viewer would read it as the type.
export const eventTypeHeaderSchema = headerNameSchema('X-Event-Type').superRefine((header, ctx) => {
  const refusal = eventTypeHeaderRefusal(header);
  if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
});

export const MAX_EVENT_TYPE_PATH_LENGTH = 200;
export const MAX_EVENT_TYPE_PATH_SEGMENTS = 32;

/** Dot-separated keys into the JSON body (`data.type`); a segment of digits indexes an array (`events.0.type`). */
export const eventTypePathSchema = z
  .string()
  .trim()
  .max(MAX_EVENT_TYPE_PATH_LENGTH, `Use at most ${MAX_EVENT_TYPE_PATH_LENGTH} characters`)
  .superRefine((path, ctx) => {
    const problem = eventTypePathProblem(path);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

function eventTypePathProblem(path: string): string | null {
  if (path.startsWith('$')) return 'Leave out the leading $: write the keys separated by dots, such as data.type';
  if (/[[\]]/.test(path)) return 'Write an array position as a segment of digits, such as events.0.type, not in brackets';
  // Printable only: the path is shown in the dashboard and in definition files.
  if (UNPRINTABLE.test(path)) return 'Use printable characters only';
  const segments = path.split('.');
  if (segments.some((segment) => segment === '')) return 'Write keys separated by single dots, such as data.type, with no empty key';
  if (segments.length > MAX_EVENT_TYPE_PATH_SEGMENTS) return `Use at most ${MAX_EVENT_TYPE_PATH_SEGMENTS} keys`;
  return null;
}

export const EVENT_TYPE_FOR_SIGNATURE_MESSAGE =
  'A provider signature webhook takes its event type from its provider scheme (docs/providers.md); the Event type setting is for bearer and URL token webhooks';
const EVENT_TYPE_BOTH_MESSAGE = 'Set a header or a body path for the event type, not both';

/** The Event type setting's rules that span fields, for every schema that carries it (create, change, definition files). */
export function checkEventTypeSetting(
  input: { authMode?: AuthMode; eventTypeHeader?: string | null; eventTypePath?: string | null },
  ctx: z.RefinementCtx,
  messages: { signature: string; both: string } = { signature: EVENT_TYPE_FOR_SIGNATURE_MESSAGE, both: EVENT_TYPE_BOTH_MESSAGE },
): void {
  const field = input.eventTypeHeader ? 'eventTypeHeader' : input.eventTypePath ? 'eventTypePath' : null;
  if (!field) return;
  if (input.authMode === 'signature') ctx.addIssue({ code: 'custom', path: [field], message: messages.signature });
  else if (input.eventTypeHeader && input.eventTypePath) ctx.addIssue({ code: 'custom', path: ['eventTypePath'], message: messages.both });
}

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
    eventTypeHeader: z.preprocess(blankToUndefined, eventTypeHeaderSchema.optional()),
    eventTypePath: z.preprocess(blankToUndefined, eventTypePathSchema.optional()),
  })
  .superRefine((input, ctx) => {
    checkEventTypeSetting(input, ctx);
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

/**
 * The IP allowlist: at most 100 IPv4 or IPv6 ranges (CIDR, or one address),
 * stored canonically (lib/ingress/allowlist.ts); empty admits every address.
 * A bad entry is named by its index (`ipAllowlist.3`).
 */
export const ipAllowlistSchema = z
  .array(z.string({ error: 'Each range is a string such as 192.0.2.0/24' }).max(MAX_RANGE_LENGTH, `A range is at most ${MAX_RANGE_LENGTH} characters`), {
    error: 'Send a list of ranges, such as ["192.0.2.0/24", "2001:db8::/32"]',
  })
  .max(MAX_ALLOWLIST_RANGES, `An allowlist holds at most ${MAX_ALLOWLIST_RANGES} ranges`)
  .transform((list, ctx) => {
    const checked = checkAllowlist(list);
    if (checked.ok) return checked.ranges;
    for (const problem of checked.problems) ctx.addIssue({ code: 'custom', path: problem.index === null ? [] : [problem.index], message: problem.message });
    return z.NEVER;
  });

/** The dashboard's allowlist field: one range per line; its problems are one message next to the field, naming the line. */
export const ipAllowlistFormSchema = z.object({
  ipAllowlist: z
    .string()
    .max(MAX_ALLOWLIST_RANGES * (MAX_RANGE_LENGTH + 2), 'The list is too long')
    .transform((text, ctx) => {
      const lines = text.split('\n').map((line, index) => ({ line: index + 1, range: line.trim() })).filter((entry) => entry.range !== '');
      const checked = checkAllowlist(lines.map((entry) => entry.range));
      if (checked.ok) return checked.ranges;
      const problems = checked.problems.map((problem) => (problem.index === null ? problem.message : `Line ${lines[problem.index]!.line}: ${problem.message}`));
      ctx.addIssue({ code: 'custom', message: problems.slice(0, 3).join('. ') + (problems.length > 3 ? ` (and ${problems.length - 3} more)` : '') });
      return z.NEVER;
    }),
  /** Set when the admin saw the warning that the list refuses the address they are using now. */
  confirmOutsideAddress: z.boolean().optional(),
});
export type IpAllowlistFormInput = z.input<typeof ipAllowlistFormSchema>;
// A webhook's custom response to accepted and duplicate deliveries
// (lib/ingress/custom-response.ts, docs/decisions/0099-a-custom-response-per-webhook.md),
// for the API, the dashboard, the CLI and definition files alike.
const CONTENT_TYPE_CHOICES = 'application/json, text/plain; charset=utf-8 or application/xml';
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

function checkCustomResponse(input: { status: number; contentType?: string | null; body?: string | null }, ctx: z.RefinementCtx): void {
  const problem = (path: 'contentType' | 'body', message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (input.status === 204) {
    if (input.contentType) problem('contentType', 'A 204 response has no body, so no content type: leave it out');
    if (input.body) problem('body', 'A 204 response has no body: leave it empty, or choose 200, 201 or 202');
    return;
  }
  if (!input.contentType) problem('contentType', `Choose ${CONTENT_TYPE_CHOICES}`);
  if (input.body === undefined || input.body === null) return problem('body', 'Enter the body (text and XML may be empty)');
  // Checked here too: the command line's --body-stdin reaches this schema without the API's check of the request.
  const unsafe = unsafeText(input.body);
  if (unsafe) return problem('body', `The body ${unsafe}`);
  const bytes = utf8Bytes(input.body);
  if (bytes > MAX_CUSTOM_RESPONSE_BODY_BYTES) {
    return problem('body', `Use at most ${MAX_CUSTOM_RESPONSE_BODY_BYTES.toLocaleString('en')} bytes (this body is ${bytes.toLocaleString('en')} bytes of UTF-8)`);
  }
  const unknown = unknownPlaceholder(input.body);
  if (unknown) return problem('body', `Unknown placeholder ${unknown}: the only placeholder is ${DELIVERY_ID_PLACEHOLDER}`);
  if (input.contentType === 'application/json' && !isValidJsonTemplate(input.body)) {
    problem('body', `Enter valid JSON, with ${DELIVERY_ID_PLACEHOLDER} inside a string, as in {"id": "${DELIVERY_ID_PLACEHOLDER}"}`);
  }
}

/** A custom response as given (a 204 takes no content type and no body), normalised to the stored shape. */
export const customResponseSchema = z
  .strictObject(
    {
      status: z.literal(CUSTOM_RESPONSE_STATUSES, { error: 'Choose 200, 201, 202 or 204' }),
      contentType: z.enum(CUSTOM_RESPONSE_CONTENT_TYPES, { error: `Choose ${CONTENT_TYPE_CHOICES}` }).nullable().optional(),
      body: z.string({ error: 'Enter the body as a string' }).nullable().optional(),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.join(', ')}: use status, contentType and body` : 'Send {status, contentType, body}, or null for the default answer') },
  )
  .superRefine(checkCustomResponse)
  .transform(
    (input): CustomResponse =>
      input.status === 204 ? { status: 204, contentType: null, body: null } : { status: input.status, contentType: input.contentType ?? null, body: input.body ?? null },
  );
export type CustomResponseInput = z.input<typeof customResponseSchema>;

/** A change of the custom response: null restores the default 202 answer. Errors name customResponse.<key>, as in the API. */
export const customResponseChangeSchema = z.object({ customResponse: customResponseSchema.nullable() });

/** The webhook page's Response form, as react-hook-form holds it (the status as a select's string). */
export type CustomResponseFormValues = {
  mode: 'default' | 'custom';
  customResponse: { status: string; contentType: string; body: string };
};

/** The Response form: its values as a change (a 204 drops the other two fields), checked by the same rules. */
export const customResponseFormSchema = z.preprocess((form: CustomResponseFormValues) => {
  if (form.mode === 'default') return { customResponse: null };
  const { status, contentType, body } = form.customResponse;
  return { customResponse: status === '204' ? { status: 204 } : { status: Number(status), contentType, body } };
}, customResponseChangeSchema);

/** Seconds within which an accepted delivery is expected (lib/domain/health: past it the webhook is Silent); null removes it. */
export const expectedIntervalSchema = z
  .number({ error: 'Enter the interval in seconds, or null for none' })
  .int('Enter a whole number of seconds')
  .min(MIN_EXPECTED_INTERVAL_SECONDS, `Use at least ${MIN_EXPECTED_INTERVAL_SECONDS} seconds`)
  .max(MAX_EXPECTED_INTERVAL_SECONDS, `Use at most ${MAX_EXPECTED_INTERVAL_SECONDS} seconds (30 days)`)
  .nullable();

// In a change, null (or blank) removes the setting; an absent key leaves it as it is.
const nullable = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? null : value), schema.nullable());

/** A change to the Event type setting: each key checked alone (absent keeps it, null removes it); the service checks them together. */
export const eventTypeChangeSchema = z.object({
  eventTypeHeader: nullable(eventTypeHeaderSchema).optional(),
  eventTypePath: nullable(eventTypePathSchema).optional(),
});

export const updateWebhookSchema = z
  .object({
    enabled: z.boolean({ error: 'enabled must be true or false' }).optional(),
    expectedIntervalSeconds: expectedIntervalSchema.optional(),
    ...eventTypeChangeSchema.shape,
    ipAllowlist: ipAllowlistSchema.optional(),
    customResponse: customResponseSchema.nullable().optional(),
  })
  .strict()
  .refine((input) => Object.values(input).some((value) => value !== undefined), {
    error: 'Send enabled, expectedIntervalSeconds, eventTypeHeader, eventTypePath, ipAllowlist or customResponse',
  });
export type UpdateWebhookInput = z.input<typeof updateWebhookSchema>;

/** A webhook's Event type setting after a change: the webhook's mode and both keys, checked together. */
export const eventTypeSettingSchema = z
  .object({ authMode: authModeSchema, eventTypeHeader: z.string().nullable(), eventTypePath: z.string().nullable() })
  .superRefine((input, ctx) => checkEventTypeSetting(input, ctx));

/** The webhook page's Event type form and its action: both keys, blank or null removing one. */
export const eventTypeSettingFormSchema = z
  .object({ eventTypeHeader: nullable(eventTypeHeaderSchema), eventTypePath: nullable(eventTypePathSchema) })
  .superRefine((input, ctx) => checkEventTypeSetting(input, ctx));
export type EventTypeSettingFormInput = z.input<typeof eventTypeSettingFormSchema>;

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
