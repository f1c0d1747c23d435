import { z } from 'zod';
import { parseRepositoryUrl, RepositoryUrlError } from '@/lib/domain/definitions/repository-url';
import { secretNameSchema } from '@/lib/domain/secrets/schemas';
import { connectionSettingsShape, type CONNECTION_PROVIDERS } from '@/lib/domain/connections/schemas';
import {
  authModeSchema,
  checkEventTypeSetting,
  customResponseSchema,
  deliveryIdHeaderSchema,
  eventTypeHeaderSchema,
  eventTypePathSchema,
  ipAllowlistSchema,
  signatureSchemeSchema,
} from '@/lib/domain/webhooks/schemas';
import type { CustomResponse } from '@/lib/ingress/custom-response';

// Factory as code: one YAML file per webhook at webhooks/<name>.yaml. The
// file name is the webhook's name; the keys (authMode, signatureScheme,
// secretName, deliveryIdHeader, eventTypeHeader, eventTypePath, ipAllowlist, customResponse, connection) are documented in docs/definitions.md. Unknown keys are errors: a
// misspelt key silently ignored would apply a different webhook than the one
// its author wrote.

/** A definition is a few lines; anything larger is not one. */
export const MAX_DEFINITION_BYTES = 16 * 1024;
/** Files a set of definitions may hold (dotfiles such as .gitkeep included), given or in a repository's folder. */
export const MAX_DEFINITION_FILES = 200;

export const definitionKeys = ['authMode', 'signatureScheme', 'secretName', 'deliveryIdHeader', 'eventTypeHeader', 'eventTypePath', 'ipAllowlist', 'customResponse', 'connection'] as const;

const connectionKeys = ['provider', 'target', 'credentialSecretName', 'apiBaseUrl', 'eventTypes'] as const;

/** Keys an author might put an API token under: refused with the reason, not only as unknown. */
const CREDENTIAL_KEY = /token|credential|secret|password|key|auth/i;

/**
 * A webhook's connection to its sender's API (docs/connections.md): the
 * settings the API's PUT .../connection takes, with the API token only by the
 * name of the team secret that holds it. A definition file is text in a
 * repository: a token written in it would be readable by everyone who can
 * read the repository, so any other key is refused, naming it.
 */
export const connectionDefinitionSchema = z.strictObject(connectionSettingsShape, {
  error: (issue) => {
    if (issue.code !== 'unrecognized_keys') return 'must be a mapping with provider, target and credentialSecretName';
    const credential = issue.keys.find((key) => CREDENTIAL_KEY.test(key));
    if (credential) {
      return `"${credential}": a definition file never holds the API token; keep it in a team secret and name that secret in credentialSecretName`;
    }
    return `unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => `"${k}"`).join(', ')} (allowed: ${connectionKeys.join(', ')})`;
  },
});

/** A connection as a definition declares it: the API base URL filled in (the provider's public API when not given). */
export type ConnectionDefinition = {
  provider: (typeof CONNECTION_PROVIDERS)[number];
  target: string;
  credentialSecretName: string;
  apiBaseUrl: string;
  /** Empty: every event. */
  eventTypes: string[];
};

export const webhookDefinitionSchema = z
  .strictObject(
    {
      authMode: authModeSchema.default('token'),
      signatureScheme: signatureSchemeSchema.optional(),
      secretName: secretNameSchema,
      deliveryIdHeader: deliveryIdHeaderSchema.optional(),
      eventTypeHeader: eventTypeHeaderSchema.optional(),
      eventTypePath: eventTypePathSchema.optional(),
      ipAllowlist: ipAllowlistSchema.optional(),
      customResponse: customResponseSchema.optional(),
      connection: connectionDefinitionSchema.optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => `"${k}"`).join(', ')} (allowed: ${definitionKeys.join(', ')})`
          : 'must be a mapping of keys to values',
    },
  )
  .superRefine((input, ctx) => {
    if (input.authMode === 'signature' && !input.signatureScheme) {
      ctx.addIssue({ code: 'custom', path: ['signatureScheme'], message: 'is required when authMode is signature' });
    }
    if (input.authMode !== 'signature' && input.signatureScheme) {
      ctx.addIssue({ code: 'custom', path: ['signatureScheme'], message: 'only applies when authMode is signature' });
    }
    checkEventTypeSetting(input, ctx, {
      signature: 'only applies when authMode is token or url_token: a signature webhook takes its event type from its provider scheme (docs/providers.md)',
      both: 'set eventTypeHeader or eventTypePath, not both',
    });
  });

/** A webhook as its definition file describes it (normalised: header lowercased, no scheme unless signature). */
export type WebhookDefinition = {
  name: string;
  authMode: z.output<typeof authModeSchema>;
  signatureScheme: z.output<typeof signatureSchemeSchema> | null;
  secretName: string;
  deliveryIdHeader: string | null;
  /** The Event type setting: a header (lowercased) or a body path; null for signature webhooks, at most one set. */
  eventTypeHeader: string | null;
  eventTypePath: string | null;
  /** The IP allowlist, canonical ranges; empty admits every address. */
  ipAllowlist: string[];
  /** The answer to accepted and duplicate deliveries; null: the default 202. */
  customResponse: CustomResponse | null;
  /** Its connection to its sender's API, made by apply; absent or null: not connected. */
  connection?: ConnectionDefinition | null;
};

/** One problem in one file: the file, the key when there is one, and what is wrong in words. */
export type DefinitionProblem = { file: string; key?: string; message: string };

export function formatProblem(problem: DefinitionProblem): string {
  return `${problem.file}: ${problem.key ? `${problem.key}: ` : ''}${problem.message}`;
}

/** A set of definition files as the API takes and returns it: path -> YAML text. */
export const definitionFilesSchema = z.object({
  files: z
    .record(z.string().min(1).max(200), z.string().max(MAX_DEFINITION_BYTES, `Each file must be at most ${MAX_DEFINITION_BYTES} bytes`))
    .refine((files) => Object.keys(files).length <= MAX_DEFINITION_FILES, `At most ${MAX_DEFINITION_FILES} files (a factory has at most 20 webhooks)`),
});
export type DefinitionFiles = Record<string, string>;

/**
 * The digest of the plan an admin saw (a plan's `digest`): an apply given it
 * refuses when the plan it makes now is another (docs/decisions/0125).
 */
export const planDigestSchema = z.string().regex(/^[0-9a-f]{64}$/, 'Must be the digest of a plan (64 hex digits): plan or check again');

/** Apply files (POST .../definitions/apply): `plan`, the digest of the plan made of these files, refuses an apply that would do anything else. */
export const definitionApplySchema = definitionFilesSchema.extend({ plan: planDigestSchema.optional() });

// A repository location in one of the forms git reads as a plain transport
// (repository-url.ts: https://, ssh://, user@host:path, and, where the
// operator allows them, http://, git://, file:// and server paths). Whether
// the server may fetch it is decided when it does (repository-access.ts).
export const repositoryUrlSchema = z
  .string()
  .trim()
  .superRefine((url, ctx) => {
    try {
      parseRepositoryUrl(url);
    } catch (error) {
      if (!(error instanceof RepositoryUrlError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  });

export const branchSchema = z
  .string()
  .trim()
  .min(1, 'Enter a branch')
  .max(200, 'Use at most 200 characters')
  .refine(
    (branch) =>
      /^[A-Za-z0-9._/-]+$/.test(branch) &&
      !/^[-/.]|\/$|\.\.|\/\/|\.lock$|\/\./.test(branch),
    'Enter a branch name such as main or release/prod',
  );

/**
 * A repository to connect or check. A credential in the URL replaces the
 * stored one; without one, the stored credential is used while the URL
 * stays on the same scheme, host and port, unless `removeCredential`.
 */
export const repositorySettingsSchema = z.object({
  url: repositoryUrlSchema,
  branch: branchSchema.default('main'),
  removeCredential: z.boolean().default(false),
});
export type RepositorySettings = z.output<typeof repositorySettingsSchema>;
export type RepositorySettingsInput = z.input<typeof repositorySettingsSchema>;

const commitSchema = z.string().regex(/^[0-9a-f]{40,64}$/, 'Check the repository again');

/** Check a repository (dashboard "Check" / "Sync now", POST .../definitions/repository/check): a new location, or without one the factory's own. */
export const repositoryCheckSchema = z.object({ repository: repositorySettingsSchema.optional() });

/** Apply the checked commit (POST .../definitions/repository/apply): connecting `repository`, or syncing the factory's own; `plan`: the checked plan's digest. */
export const repositoryApplySchema = z.object({ repository: repositorySettingsSchema.optional(), commit: commitSchema, plan: planDigestSchema.optional() });
