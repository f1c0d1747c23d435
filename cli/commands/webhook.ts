import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  rotateWebhookSecret,
  setCustomResponse,
  setEventTypeSetting,
  setIpAllowlist,
  setProviderSecret,
  setWebhookEnabled,
} from '@/lib/domain/webhooks/service';
import { authModeLabels, type CustomResponseInput } from '@/lib/domain/webhooks/schemas';
import { describeCustomResponse } from '@/lib/ingress/custom-response';
import { CLI, parseOptions, readStdin, required, UsageError } from '../args';
import { withDatabase } from '../database';
import { factoryIdOrThrow } from '../factory';
import { runCommand } from '../run-command';
import { CONNECTION_SUBCOMMANDS, connectionOptions, connectionUsage, runConnectionSubcommand } from './webhook-connection';

const usage = `Usage: ${CLI} webhook <subcommand> --factory <slug> [options]

  list
  create --name <name> [--auth-mode token|url_token|signature] [--scheme <scheme>]
         [--provider-secret-stdin] [--secret-name <TEAM_SECRET>] [--delivery-id-header <header>]
         [--event-type-header <header> | --event-type-path <dot.path>]   (token and url_token)
  event-type --uid <uid> [--event-type-header <header> | --event-type-path <dot.path>]
                                     replaces the Event type setting; with neither, removes it
  allow --uid <uid> [--range <cidr>]...
                                     replaces the IP allowlist (IPv4 or IPv6 CIDR ranges, at most 100);
                                     with no --range, every address is admitted again
  response --uid <uid> --status 200|201|202|204 [--content-type json|text|xml]
           [--body <text> | --body-stdin]
                                     answers accepted and duplicate deliveries with this
                                     ({{delivery_id}} in the body: the delivery's ID)
  response --uid <uid> --default     the default answer again: 202 {"delivery_id": ...}
  rotate --uid <uid>                 prints the new secret and ingress URL (shown once)
  provider-secret --uid <uid>        reads the provider-issued secret from stdin
  enable --uid <uid> | disable --uid <uid>
  delete --uid <uid>
${connectionUsage}

create and rotate print the secret once, on its own line after "secret:".`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, {
      factory: { type: 'string' },
      name: { type: 'string' },
      uid: { type: 'string' },
      'auth-mode': { type: 'string' },
      scheme: { type: 'string' },
      'provider-secret-stdin': { type: 'boolean' },
      'secret-name': { type: 'string' },
      'delivery-id-header': { type: 'string' },
      'event-type-header': { type: 'string' },
      'event-type-path': { type: 'string' },
      range: { type: 'string', multiple: true },
      status: { type: 'string' },
      'content-type': { type: 'string' },
      body: { type: 'string' },
      'body-stdin': { type: 'boolean' },
      default: { type: 'boolean' },
      ...connectionOptions,
    });
    const subcommand = positionals[0];
    const slug = required(values.factory, 'factory');
    const providerSecret = values['provider-secret-stdin'] || subcommand === 'provider-secret' ? await readStdin() : undefined;
    const customResponse = subcommand === 'response' ? await customResponseOption(values) : undefined;
    return withDatabase(async (database) => {
      const factoryId = await factoryIdOrThrow(database, slug);
      const db = database.prisma;
      if ((CONNECTION_SUBCOMMANDS as readonly (string | undefined)[]).includes(subcommand)) {
        return runConnectionSubcommand(subcommand as (typeof CONNECTION_SUBCOMMANDS)[number], factoryId, values, db);
      }
      switch (subcommand) {
        case 'list': {
          for (const w of await listWebhooks(factoryId, db)) {
            console.log([w.uid, w.name, authModeLabels[w.authMode], w.signatureScheme ?? '-', w.state, w.ingressUrl].join('\t'));
          }
          return 0;
        }
        case 'create': {
          const result = await createWebhook(
            factoryId,
            {
              name: required(values.name, 'name'),
              authMode: values['auth-mode'] as never,
              signatureScheme: values.scheme as never,
              providerSecret,
              secretName: values['secret-name'],
              deliveryIdHeader: values['delivery-id-header'],
              eventTypeHeader: values['event-type-header'],
              eventTypePath: values['event-type-path'],
            },
            db,
          );
          console.log(`uid: ${result.webhook.uid}`);
          console.log(`ingress URL: ${result.ingressUrl}`);
          console.log(`team secret: ${result.webhook.secretName}`);
          if (result.secret) console.log(`secret: ${result.secret}`);
          if (result.webhook.awaitingSecret) console.log('awaiting the provider-issued secret: enter it with `webhook provider-secret`');
          return 0;
        }
        case 'rotate': {
          const result = await rotateWebhookSecret(factoryId, required(values.uid, 'uid'), db);
          console.log(`ingress URL: ${result.ingressUrl}`);
          console.log(`secret: ${result.secret}`);
          return 0;
        }
        case 'provider-secret': {
          const webhook = await setProviderSecret(factoryId, required(values.uid, 'uid'), { secret: providerSecret ?? '' }, db);
          console.log(`${webhook.name}: ${webhook.state}`);
          return 0;
        }
        case 'event-type': {
          const webhook = await setEventTypeSetting(
            factoryId,
            required(values.uid, 'uid'),
            { eventTypeHeader: values['event-type-header'] ?? null, eventTypePath: values['event-type-path'] ?? null },
            db,
          );
          const setting = webhook.eventTypeHeader
            ? `event type from header ${webhook.eventTypeHeader}`
            : webhook.eventTypePath
              ? `event type from body path ${webhook.eventTypePath}`
              : 'no event type setting';
          console.log(`${webhook.name}: ${setting}`);
          return 0;
        }
        case 'allow': {
          const webhook = await setIpAllowlist(factoryId, required(values.uid, 'uid'), values.range ?? [], db);
          console.log(`${webhook.name}: ${webhook.ipAllowlist.length > 0 ? `admits ${webhook.ipAllowlist.join(', ')}` : 'admits every address'}`);
          return 0;
        }
        case 'response': {
          const webhook = await setCustomResponse(factoryId, required(values.uid, 'uid'), customResponse ?? null, db);
          const response = webhook.customResponse ? `answers ${describeCustomResponse(webhook.customResponse)}` : 'answers 202 {"delivery_id": ...} (the default)';
          console.log(`${webhook.name}: ${response}`);
          return 0;
        }
        case 'enable':
        case 'disable': {
          const webhook = await setWebhookEnabled(factoryId, required(values.uid, 'uid'), subcommand === 'enable', db);
          console.log(`${webhook.name}: ${webhook.state}`);
          return 0;
        }
        case 'delete': {
          await deleteWebhook(factoryId, required(values.uid, 'uid'), db);
          console.log('deleted');
          return 0;
        }
        default:
          throw new UsageError(subcommand ? `Unknown subcommand "${subcommand}"` : 'Missing subcommand');
      }
    });
  });
}

const contentTypes: Record<string, string> = { json: 'application/json', text: 'text/plain; charset=utf-8', xml: 'application/xml' };

/** `webhook response`'s options as the service takes them (which checks them): --default is null. */
async function customResponseOption(values: {
  status?: string;
  'content-type'?: string;
  body?: string;
  'body-stdin'?: boolean;
  default?: boolean;
}): Promise<CustomResponseInput | null> {
  if (values.default) {
    if (values.status !== undefined) throw new UsageError('Give --status or --default, not both');
    return null;
  }
  const status = required(values.status, 'status');
  if (values.body !== undefined && values['body-stdin']) throw new UsageError('Give --body or --body-stdin, not both');
  const body = values['body-stdin'] ? await readStdin() : values.body;
  const type = values['content-type'];
  // The status is checked by the service; a word that is no number reaches it as it is, to be refused there.
  return { status: (/^\d+$/.test(status) ? Number(status) : status) as never, contentType: type === undefined ? undefined : ((contentTypes[type] ?? type) as never), body };
}
