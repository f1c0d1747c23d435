import 'server-only';
import { createHash } from 'node:crypto';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { parseDefinitionFiles, type ParsedDefinition } from '@/lib/domain/definitions/parse';
import type { ConnectionDefinition, DefinitionFiles, DefinitionProblem, WebhookDefinition } from '@/lib/domain/definitions/schemas';
import { PROVIDER_NAME } from '@/lib/domain/connections/schemas';
import { checkConnectionSettings } from '@/lib/domain/connections/service';
import { AppError } from '@/lib/platform/http/errors';
import { definitionPath } from '@/lib/domain/webhooks/definition-file';
import { isUrlSafe } from '@/lib/domain/secrets/schemas';
import { MAX_WEBHOOKS_PER_FACTORY } from '@/lib/domain/webhooks/schemas';
import { readSecretValue } from '@/lib/domain/secrets/service';
import { listWebhookDefinitions } from '@/lib/domain/webhooks/service';
import { describeCustomResponse } from '@/lib/ingress/custom-response';

// What applying a set of definition files would do to a factory: which
// webhooks it creates, updates and deletes, and every problem that would make
// it fail. Reading only: `tripline plan`, the plan API and the dashboard's
// preview before a repository sync show exactly what apply.ts then does.

/**
 * What apply does to a webhook's connection once the webhooks are written
 * (docs/definitions.md, Connections): connect (create or adopt the
 * provider's hook, with a new secret) or disconnect (the hook stays).
 */
export type ConnectionStep = 'connect' | 'disconnect';

export type PlanAction =
  | { action: 'create'; name: string; file: string; definition: ParsedDefinition; changes: string[]; connection?: ConnectionStep }
  | { action: 'update'; name: string; file: string; uid: string; definition: ParsedDefinition; changes: string[]; connection?: ConnectionStep }
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

const sameEvents = (a: string[], b: string[]) => [...a].sort().join(',') === [...b].sort().join(',');

/** The connection step a definition asks for, and the plan's words for it; null when the connection stays as it is. */
function connectionChange(current: ConnectionDefinition | null, next: ConnectionDefinition | null): { step: ConnectionStep; change: string } | null {
  if (!next) return current ? { step: 'disconnect', change: `disconnect from ${PROVIDER_NAME[current.provider]} ${current.target} (the provider's hook stays)` } : null;
  const to = `${PROVIDER_NAME[next.provider]} ${next.target}`;
  if (!current) return { step: 'connect', change: `connect to ${to}` };
  const keys = ['provider', 'target', 'credentialSecretName', 'apiBaseUrl'] as const;
  const changed = keys.filter((key) => current[key] !== next[key]).map((key) => `${key}: ${current[key]} → ${next[key]}`);
  if (!sameEvents(current.eventTypes, next.eventTypes)) changed.push(`eventTypes: ${describe(current.eventTypes)} → ${describe(next.eventTypes)}`);
  return changed.length > 0 ? { step: 'connect', change: `connect again to ${to} (${changed.join('; ')})` } : null;
}

/**
 * The checks connect makes before it asks the provider, as problems of the
 * file, so that a plan shows them and an apply refuses before it writes
 * anything. A connection sets a new value in the webhook's team secret: one
 * that another webhook uses too would change under it.
 */
async function connectionProblems(factoryId: string, definition: ParsedDefinition, all: ParsedDefinition[], db: DbOrTx): Promise<DefinitionProblem[]> {
  const connection = definition.connection!;
  const sharing = all.find((other) => other !== definition && other.secretName === definition.secretName);
  if (sharing) {
    return [{ file: definition.file, key: 'secretName', message: `is also the team secret of ${sharing.name}: a connection sets a new value in its webhook's team secret, so give this webhook a team secret of its own` }];
  }
  try {
    await checkConnectionSettings(factoryId, definition, connection, db);
    return [];
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = Object.keys(error.fields ?? {})[0];
    return [{ file: definition.file, key: field ? `connection.${field}` : 'connection', message: error.message }];
  }
}

export async function planDefinitions(factoryId: string, files: DefinitionFiles, db: DbOrTx = prisma): Promise<Plan> {
  const { definitions, problems, brokenNames } = parseDefinitionFiles(files);
  // More definitions than a factory may hold can never apply: say so before a query per definition.
  if (definitions.length > MAX_WEBHOOKS_PER_FACTORY) return { actions: [], unchanged: [], problems };
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
    const connection = connectionChange(existing?.definition.connection ?? null, definition.connection ?? null);
    if (connection?.step === 'connect') problems.push(...(await connectionProblems(factoryId, definition, definitions, db)));
    if (!existing) {
      creates.push({ action: 'create', name, file, definition, changes: connection ? [connection.change] : [], ...(connection ? { connection: connection.step } : {}) });
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
    if (connection) changes.push(connection.change);
    if (changes.length > 0) updates.push({ action: 'update', name, file, uid: existing.uid, definition, changes, ...(connection ? { connection: connection.step } : {}) });
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

/**
 * The plan's fingerprint: every action with the webhook it touches (its UID)
 * and its changes in words, and the webhooks left as they are. A plan shown
 * to an admin carries it, and an apply given it refuses when the plan it
 * makes now is another (docs/decisions/0125): what applies is what was shown.
 */
export function planDigest(plan: Pick<Plan, 'actions' | 'unchanged'>): string {
  const actions = plan.actions.map((action) => [action.action, action.name, 'uid' in action ? action.uid : null, action.changes]);
  return createHash('sha256').update(JSON.stringify(['tripline.plan.v1', actions, plan.unchanged])).digest('hex');
}

/** The plan in lines, as the CLI prints it and the dashboard lists it. */
export function describeAction(action: PlanAction): string {
  const detail = action.changes.length > 0 ? ` (${action.changes.join('; ')})` : '';
  return `${action.action} ${action.name}${'uid' in action ? ` ${action.uid}` : ''}${detail}`;
}
