import type { Db } from '@/lib/platform/db';
import { connectWebhook, disconnectWebhook, getConnection, requestCheck, type ConnectionView } from '@/lib/domain/connections/service';
import { PROVIDER_NAME } from '@/lib/domain/connections/schemas';
import { required, UsageError } from '../args';

// `tripline webhook connect | connection | check | disconnect`: a webhook's
// connection to its sender's API (docs/connections.md), through the same
// service as the API's .../connection routes, so the same checks and messages.

export const connectionUsage = `  connect --uid <uid> --provider <provider> --target <owner/repo|org> --credential-secret <TEAM_SECRET>
          [--api-base-url <url>] [--event <type>]...
                                     creates (or adopts) the provider's hook, with a new secret on both sides;
                                     again: changes the settings. --event push,issues or repeated; none: every event
  connection --uid <uid> [--json]    the connection: its hook, last and next check, last error, recovered deliveries
  check --uid <uid>                  Check now: the recovery pass is due at once
  disconnect --uid <uid> [--delete-provider-hook]
                                     Tripline stops managing the hook; the provider's hook stays (and keeps
                                     sending) unless --delete-provider-hook`;

export const connectionOptions = {
  provider: { type: 'string' },
  target: { type: 'string' },
  'credential-secret': { type: 'string' },
  'api-base-url': { type: 'string' },
  event: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'delete-provider-hook': { type: 'boolean' },
} as const;

type Values = {
  uid?: string;
  provider?: string;
  target?: string;
  'credential-secret'?: string;
  'api-base-url'?: string;
  event?: string[];
  json?: boolean;
  'delete-provider-hook'?: boolean;
};

export const CONNECTION_SUBCOMMANDS = ['connect', 'connection', 'check', 'disconnect'] as const;

const time = (at: Date | null) => (at ? at.toISOString() : 'never');

/** The connection in lines of "label: value", as `webhook connection` prints it. */
export function describeConnection(uid: string, c: ConnectionView): string[] {
  return [
    `webhook: ${uid}`,
    `provider: ${c.provider} (${PROVIDER_NAME[c.provider]})`,
    `target: ${c.target}`,
    `api: ${c.apiBaseUrl}`,
    `credential: team secret ${c.credentialSecretName}`,
    `events: ${c.eventTypes.length > 0 ? c.eventTypes.join(', ') : 'every event'}`,
    `hook: ${c.providerHookId ?? '-'}${c.providerHookUrl ? ` ${c.providerHookUrl}` : ''}`,
    `last check: ${time(c.lastCheckAt)}${c.checking ? ' (a pass is running now)' : ''}`,
    `next check: ${c.nextCheckAt ? c.nextCheckAt.toISOString() : '-'}`,
    `last pass: ${c.lastMissing} missing, ${c.lastRecovered} recovered`,
    `last error: ${c.lastError ?? 'none'}${c.consecutiveFailures > 0 ? ` (${c.consecutiveFailures} failed ${c.consecutiveFailures === 1 ? 'pass' : 'passes'} in a row)` : ''}`,
    `watermark: ${c.watermark ? c.watermark.toISOString() : '-'}`,
  ];
}

/** --event push,issues and --event push --event issues alike. */
const eventList = (values: string[] | undefined) => (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');

export async function runConnectionSubcommand(subcommand: (typeof CONNECTION_SUBCOMMANDS)[number], factoryId: string, values: Values, db: Db): Promise<number> {
  const uid = required(values.uid, 'uid');
  switch (subcommand) {
    case 'connect': {
      const connection = await connectWebhook(
        factoryId,
        uid,
        {
          // The service checks each value and names the field it refuses.
          provider: required(values.provider, 'provider') as never,
          target: required(values.target, 'target'),
          credentialSecretName: required(values['credential-secret'], 'credential-secret'),
          apiBaseUrl: values['api-base-url'],
          eventTypes: eventList(values.event),
        },
        db,
      );
      console.log(`${uid}: connected to ${PROVIDER_NAME[connection.provider]} ${connection.target}, hook ${connection.providerHookId}${connection.providerHookUrl ? ` ${connection.providerHookUrl}` : ''}`);
      console.log('a new signing secret is set on both sides; the first recovery pass is due now');
      return 0;
    }
    case 'connection': {
      const connection = await getConnection(factoryId, uid, db);
      if (values.json) console.log(JSON.stringify({ connection }, null, 2));
      else if (!connection) console.log(`${uid}: not connected`);
      else for (const line of describeConnection(uid, connection)) console.log(line);
      return 0;
    }
    case 'check': {
      const connection = await requestCheck(factoryId, uid, db);
      console.log(`${uid}: a check of ${PROVIDER_NAME[connection.provider]} ${connection.target} is due now`);
      // This process runs no recovery loop: the server's does (it looks for due passes every 30 s, and runs every connection's at its start).
      console.log('a running server starts it within 30 s; see its result with `webhook connection`');
      return 0;
    }
    case 'disconnect': {
      const deleteProviderHook = values['delete-provider-hook'] === true;
      const before = await getConnection(factoryId, uid, db);
      await disconnectWebhook(factoryId, uid, { deleteProviderHook }, db);
      const hook = before?.providerHookId ? `${PROVIDER_NAME[before.provider]}'s hook ${before.providerHookId}` : `the provider's hook`;
      console.log(`${uid}: disconnected; ${deleteProviderHook ? `${hook} is deleted` : `${hook} stays and keeps sending`}`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown subcommand "${subcommand as string}"`);
  }
}
