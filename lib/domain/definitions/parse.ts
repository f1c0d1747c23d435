import { LineCounter, parseDocument } from 'yaml';
import { findUnsafeValue } from '@/lib/platform/http/unsafe-input';
import {
  MAX_DEFINITION_BYTES,
  webhookDefinitionSchema,
  type DefinitionFiles,
  type DefinitionProblem,
  type WebhookDefinition,
} from '@/lib/domain/definitions/schemas';
import { DEFINITION_EXTENSION, WEBHOOKS_DIR } from '@/lib/domain/webhooks/definition-file';
import { MAX_WEBHOOKS_PER_FACTORY, webhookNameSchema } from '@/lib/domain/webhooks/schemas';
import { apiBaseUrlOf } from '@/lib/domain/connections/schemas';

// Pure parsing and validation of a set of definition files: no database, so
// `tripline validate` runs offline and the same checks open every plan.

export type ParsedDefinition = WebhookDefinition & { file: string };

export type ParseResult = {
  definitions: ParsedDefinition[];
  problems: DefinitionProblem[];
  /** Webhook names whose file exists but has problems: a plan must not read them as deleted. */
  brokenNames: string[];
};

/** Files a definition folder may hold besides definitions: dotfiles such as .gitkeep keep an empty folder in git. */
export const isIgnoredPath = (path: string) => path.split('/').some((part) => part.startsWith('.'));

function parseName(file: string): { name?: string; problem?: string } {
  const rest = file.slice(WEBHOOKS_DIR.length + 1);
  if (!file.startsWith(`${WEBHOOKS_DIR}/`) || rest.includes('/')) {
    return { problem: `only files named ${WEBHOOKS_DIR}/<name>${DEFINITION_EXTENSION} are webhook definitions` };
  }
  if (!rest.endsWith(DEFINITION_EXTENSION)) {
    return { problem: `a definition file's name ends in ${DEFINITION_EXTENSION}${rest.endsWith('.yml') ? ' (not .yml)' : ''}` };
  }
  const parsed = webhookNameSchema.safeParse(rest.slice(0, -DEFINITION_EXTENSION.length));
  if (!parsed.success || parsed.data !== rest.slice(0, -DEFINITION_EXTENSION.length)) {
    return { problem: `the file name is the webhook's name: ${parsed.error?.issues[0]?.message ?? 'remove the spaces'}` };
  }
  return { name: parsed.data };
}

/** One file's YAML text as a definition, or the problems that stop it. */
export function parseDefinitionFile(
  file: string,
  text: string,
): { name?: string; definition?: ParsedDefinition; problems: DefinitionProblem[] } {
  const { name, problem } = parseName(file);
  if (!name) return { problems: [{ file, message: problem! }] };
  return { name, ...parseContent(file, name, text) };
}

/** Alias uses a definition file may make (yaml's own default): a definition needs none. */
const MAX_ALIASES = 100;

function parseContent(file: string, name: string, text: string): { definition?: ParsedDefinition; problems: DefinitionProblem[] } {
  if (Buffer.byteLength(text) > MAX_DEFINITION_BYTES) {
    return { problems: [{ file, message: `the file is larger than ${MAX_DEFINITION_BYTES} bytes` }] };
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter: lines });
  if (document.errors.length > 0) {
    return {
      problems: document.errors.map((error) => {
        const at = lines.linePos(error.pos[0]);
        return { file, message: `not valid YAML (line ${at.line}, column ${at.col}): ${error.message.split('\n')[0]}` };
      }),
    };
  }
  // Aliases are expanded here, and past yaml's bound (100 a document) it throws rather than
  // reporting: a file of nested aliases (a "billion laughs") is a problem of that file, not a 500.
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    const reason = error instanceof RangeError ? 'it nests too deeply' : `its aliases expand too far (at most ${MAX_ALIASES} alias uses)`;
    return { problems: [{ file, message: `not a definition Tripline can read: ${reason}` }] };
  }
  if (value === null || value === undefined) {
    return { problems: [{ file, message: 'the file is empty: a definition needs at least secretName' }] };
  }
  // YAML's escapes ("\0", "\uD800") make characters that no field can hold, which the request's own
  // check (of the file's text as one JSON string) never saw.
  const unsafe = findUnsafeValue(value);
  if (unsafe) return { problems: [{ file, ...(unsafe.field === 'body' ? {} : { key: unsafe.field }), message: unsafe.problem }] };
  const parsed = webhookDefinitionSchema.safeParse(value);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => {
        const key = issue.path.length > 0 ? issue.path.join('.') : undefined;
        return { file, ...(key ? { key } : {}), message: issue.message };
      }),
    };
  }
  const data = parsed.data;
  return {
    problems: [],
    definition: {
      file,
      name,
      authMode: data.authMode,
      signatureScheme: data.authMode === 'signature' ? (data.signatureScheme ?? null) : null,
      secretName: data.secretName,
      deliveryIdHeader: data.deliveryIdHeader ?? null,
      eventTypeHeader: data.eventTypeHeader ?? null,
      eventTypePath: data.eventTypePath ?? null,
      ipAllowlist: data.ipAllowlist ?? [],
      customResponse: data.customResponse ?? null,
      ...(data.connection
        ? {
            connection: {
              provider: data.connection.provider,
              target: data.connection.target,
              credentialSecretName: data.connection.credentialSecretName,
              apiBaseUrl: apiBaseUrlOf(data.connection.provider, data.connection.apiBaseUrl),
              eventTypes: data.connection.eventTypes,
            },
          }
        : {}),
    },
  };
}

/** Parses and checks a whole set of files: every problem in every file, not just the first. */
export function parseDefinitionFiles(files: DefinitionFiles): ParseResult {
  const definitions: ParsedDefinition[] = [];
  const problems: DefinitionProblem[] = [];
  const brokenNames: string[] = [];
  for (const file of Object.keys(files).sort()) {
    if (isIgnoredPath(file)) continue;
    const result = parseDefinitionFile(file, files[file]!);
    problems.push(...result.problems);
    if (result.definition) definitions.push(result.definition);
    else if (result.name) brokenNames.push(result.name);
  }
  if (definitions.length > MAX_WEBHOOKS_PER_FACTORY) {
    problems.push({
      file: `${WEBHOOKS_DIR}/`,
      message: `${definitions.length} webhooks are defined, but a factory can have at most ${MAX_WEBHOOKS_PER_FACTORY}`,
    });
  }
  return { definitions, problems, brokenNames };
}
