import { stringify } from 'yaml';
import type { Tx } from '@/lib/platform/db';
import type { ConnectionDefinition, WebhookDefinition } from '@/lib/domain/definitions/schemas';
import { DEFAULT_API_BASE_URL } from '@/lib/domain/connections/schemas';
import type { CustomResponse } from '@/lib/ingress/custom-response';

// A webhook's own definition file: where it lives in a factory's folder, its
// text, and the DefinitionFile row that keeps it on a managed factory. It is
// here, with the webhook rules, because they write it (a managed factory's
// dashboard edit writes the file in the edit's transaction); the definitions
// domain reads and applies whole sets of files on top of the webhook rules,
// so the dependency runs one way, definitions -> webhooks.

export const WEBHOOKS_DIR = 'webhooks';
export const DEFINITION_EXTENSION = '.yaml';

/** The file path of a webhook's definition. */
export const definitionPath = (name: string) => `${WEBHOOKS_DIR}/${name}${DEFINITION_EXTENSION}`;

/** The definition file text for a webhook, as the dashboard writes it. */
export function serializeDefinition(definition: WebhookDefinition): string {
  return stringify({
    authMode: definition.authMode,
    ...(definition.signatureScheme ? { signatureScheme: definition.signatureScheme } : {}),
    secretName: definition.secretName,
    ...(definition.deliveryIdHeader ? { deliveryIdHeader: definition.deliveryIdHeader } : {}),
    ...(definition.eventTypeHeader ? { eventTypeHeader: definition.eventTypeHeader } : {}),
    ...(definition.eventTypePath ? { eventTypePath: definition.eventTypePath } : {}),
    ...(definition.ipAllowlist.length > 0 ? { ipAllowlist: definition.ipAllowlist } : {}),
    ...(definition.customResponse ? { customResponse: customResponseYaml(definition.customResponse) } : {}),
    ...(definition.connection ? { connection: connectionYaml(definition.connection) } : {}),
  });
}

/** A connection as its file writes it: the credential by its team secret's name (a connection has no other), defaults left out. */
const connectionYaml = ({ provider, target, credentialSecretName, apiBaseUrl, eventTypes }: ConnectionDefinition) => ({
  provider,
  target,
  credentialSecretName,
  ...(apiBaseUrl !== DEFAULT_API_BASE_URL[provider] ? { apiBaseUrl } : {}),
  ...(eventTypes.length > 0 ? { eventTypes } : {}),
});

/** A custom response as its file writes it: a 204 with its status alone. */
const customResponseYaml = ({ status, contentType, body }: CustomResponse) => (status === 204 ? { status } : { status, contentType, body });

/** The path and text of a webhook's definition file. */
export function definitionFile(definition: WebhookDefinition): { path: string; content: string } {
  return { path: definitionPath(definition.name), content: serializeDefinition(definition) };
}

export async function writeDefinitionFileTx(tx: Tx, factoryId: string, file: { path: string; content: string }): Promise<void> {
  await tx.definitionFile.upsert({
    where: { factoryId_path: { factoryId, path: file.path } },
    create: { factoryId, path: file.path, content: file.content },
    update: { content: file.content },
  });
}

export async function removeDefinitionFileTx(tx: Tx, factoryId: string, webhookName: string): Promise<void> {
  await tx.definitionFile.deleteMany({ where: { factoryId, path: definitionPath(webhookName) } });
}
