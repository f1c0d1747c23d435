import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { parseDefinitionFiles, type ParsedDefinition } from '@/lib/domain/definitions/parse';
import type { DefinitionFiles, DefinitionProblem, WebhookDefinition } from '@/lib/domain/definitions/schemas';
import { definitionPath } from '@/lib/domain/webhooks/definition-file';
import { isUrlSafe } from '@/lib/domain/secrets/schemas';
import { readSecretValue } from '@/lib/domain/secrets/service';
import { listWebhookDefinitions } from '@/lib/domain/webhooks/service';
import { describeCustomResponse } from '@/lib/ingress/custom-response';

// What applying a set of definition files would do to a factory: which
// webhooks it creates, updates and deletes, and every problem that would make
// it fail. Reading only: `tripline plan`, the plan API and the dashboard's
// preview before a repository sync show exactly what apply.ts then does.

export type PlanAction =
  | { action: 'create'; name: string; file: string; definition: ParsedDefinition; changes: string[] }
  | { action: 'update'; name: string; file: string; uid: string; definition: ParsedDefinition; changes: string[] }
  | { action: 'delete'; name: string; file: string; uid: string; changes: string[] };

export type Plan = {
  /** Deletes first, then updates, then creates, each by name. */
  actions: PlanAction[];
  /** Webhooks that the files leave exactly as they are. */
  unchanged: string[];
  /** Empty when the files can be applied. */
  problems: DefinitionProblem[];
};

const describe = (value: string | readonly string[] | null) => (Array.isArray(value) ? (value.length > 0 ? value.join(', ') : '(none)') : (value ?? '(none)'));

/** What differs between a webhook and its definition, in words. */
function differences(current: WebhookDefinition, next: WebhookDefinition): string[] {
  const keys = ['authMode', 'signatureScheme', 'secretName', 'deliveryIdHeader', 'eventTypeHeader', 'eventTypePath', 'ipAllowlist'] as const;
  const changes = keys.filter((key) => describe(current[key]) !== describe(next[key])).map((key) => `${key}: ${describe(current[key])} → ${describe(next[key])}`);
  const [before, after] = [current.customResponse, next.customResponse];
  if (before?.status !== after?.status || before?.contentType !== after?.contentType || before?.body !== after?.body) {
    changes.push(`customResponse: ${describeCustomResponse(before)} → ${describeCustomResponse(after)}`);
  }
  return changes;
}

export async function planDefinitions(factoryId: string, files: DefinitionFiles, db: DbOrTx = prisma): Promise<Plan> {
  const { definitions, problems, brokenNames } = parseDefinitionFiles(files);
  const current = await listWebhookDefinitions(factoryId, db);
  const byName = new Map(current.map((webhook) => [webhook.definition.name, webhook]));

  // docs/definitions.md, Applying a set of files: every secretName must name an existing team secret, and a
  // url_token secret must be URL-safe. The versions tell which webhooks
  // would take up a changed value.
  const versions = new Map<string, number>();
  for (const definition of definitions) {
    const secret = await readSecretValue(db, factoryId, definition.secretName);
    if (!secret) {
      problems.push({
        file: definition.file,
        key: 'secretName',
        message: `names no team secret: create ${definition.secretName} on the Secrets page (or with \`tripline secret put\`) first`,
      });
      continue;
    }
    versions.set(definition.secretName, secret.version);
    if (definition.authMode === 'url_token' && !isUrlSafe(secret.value)) {
      problems.push({
        file: definition.file,
        key: 'secretName',
        message: `the value of ${definition.secretName} is not URL-safe (only letters, digits and - . _ ~), so it cannot be a URL token`,
      });
    }
  }

  const creates: PlanAction[] = [];
  const updates: PlanAction[] = [];
  const unchanged: string[] = [];
  for (const definition of definitions) {
    const { file, name } = definition;
    const existing = byName.get(name);
    if (!existing) {
      creates.push({ action: 'create', name, file, definition, changes: [] });
      continue;
    }
    const changes = differences(existing.definition, definition);
    const version = versions.get(definition.secretName);
    if (changes.length === 0 && version !== undefined && version !== existing.credentialVersion) {
      changes.push(
        existing.credentialVersion === null
          ? `applies the team secret ${definition.secretName} (awaited until now)`
          : `takes up the changed value of ${definition.secretName}`,
      );
    }
    if (changes.length > 0) updates.push({ action: 'update', name, file, uid: existing.uid, definition, changes });
    else unchanged.push(name);
  }

  const kept = new Set([...definitions.map((d) => d.name), ...brokenNames]);
  const deletes: PlanAction[] = current
    .filter((webhook) => !kept.has(webhook.definition.name))
    .map((webhook) => ({
      action: 'delete',
      name: webhook.definition.name,
      file: definitionPath(webhook.definition.name),
      uid: webhook.uid,
      changes: [],
    }));

  return { actions: [...deletes, ...updates, ...creates], unchanged, problems };
}

/** The plan in lines, as the CLI prints it and the dashboard lists it. */
export function describeAction(action: PlanAction): string {
  const detail = action.changes.length > 0 ? ` (${action.changes.join('; ')})` : '';
  return `${action.action} ${action.name}${'uid' in action ? ` ${action.uid}` : ''}${detail}`;
}
