import Link from 'next/link';
import { timeUntil } from '@/components/deliveries/format';
import { InlineTime } from '@/components/deliveries/timestamp';
import { sentence } from '@/components/format';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { ChipList } from '@/components/ui/chip-list';
import { DetailRow } from '@/components/ui/detail-row';
import { ExternalLinkIcon } from '@/components/ui/icons';
import { Spinner } from '@/components/ui/spinner';
import { textLinkStyle } from '@/components/ui/text-link';
import {
  CONNECTION_PROVIDERS,
  DEFAULT_API_BASE_URL,
  PROVIDER_NAME,
  PROVIDER_SCHEME,
  PROVIDER_TARGET,
  SUPPORTED_PROVIDERS,
} from '@/lib/domain/connections/schemas';
import type { ConnectionView } from '@/lib/domain/connections/service';
import { ConnectionControls } from './connection-controls';

// The webhook page's Connection card (docs/connections.md, In the dashboard):
// for a webhook whose signature scheme a connection can serve, either the way
// to connect it or the connection's state, its last pass and what recovery
// brought back. Generic over CONNECTION_PROVIDERS: a provider whose adapter
// does not exist yet is shown as not available.

/** The connection kinds that serve a signature scheme (GitHub: repository and organization). */
export function connectionKinds(scheme: string | null): { value: (typeof CONNECTION_PROVIDERS)[number]; available: boolean }[] {
  return CONNECTION_PROVIDERS.filter((provider) => PROVIDER_SCHEME[provider] === scheme).map((value) => ({
    value,
    available: (SUPPORTED_PROVIDERS as readonly string[]).includes(value),
  }));
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

function ConnectionDetails({
  connection,
  checking,
  enabled,
  secretsHref,
  now,
}: {
  connection: ConnectionView;
  checking: boolean;
  enabled: boolean;
  secretsHref: string | null;
  now: number;
}) {
  const name = PROVIDER_NAME[connection.provider];
  const target = PROVIDER_TARGET[connection.provider];
  const incomplete = connection.lastError?.startsWith('Incomplete') ?? false;
  return (
    <>
      {connection.lastError ? (
        <div className="border-b border-line px-5 py-4">
          <Alert
            tone={incomplete ? 'warning' : 'danger'}
            title={
              incomplete
                ? 'The last check stopped before the end'
                : `The last check failed${connection.consecutiveFailures > 1 ? ` (${connection.consecutiveFailures} times in a row)` : ''}`
            }
          >
            {sentence(connection.lastError)}
            {connection.nextCheckAt && enabled ? ` Tripline tries again ${timeUntil(connection.nextCheckAt, now) ?? 'later'}.` : null}
          </Alert>
        </div>
      ) : null}
      <dl className="divide-y divide-line">
        <DetailRow label={target.label}>
          <span className="font-mono text-[13px]">{connection.target}</span>
          <span className="ml-1.5 text-fg-muted">· {name}</span>
        </DetailRow>
        <DetailRow label="Hook">
          {connection.providerHookId ? (
            <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <span className="font-mono text-[13px]">{connection.providerHookId}</span>
              {connection.providerHookUrl ? (
                <a href={connection.providerHookUrl} target="_blank" rel="noreferrer" className={`inline-flex items-center gap-1 ${textLinkStyle}`}>
                  Open on {name}
                  <ExternalLinkIcon className="size-3.5" />
                  <span className="sr-only"> (opens in a new tab)</span>
                </a>
              ) : null}
            </span>
          ) : (
            <span className="text-fg-muted">None yet: connect again</span>
          )}
        </DetailRow>
        <DetailRow label="Event types">
          {connection.eventTypes.length > 0 ? (
            <ChipList label="Event types" items={connection.eventTypes} />
          ) : (
            <span className="text-fg-muted">Every event</span>
          )}
        </DetailRow>
        <DetailRow label="API credential">
          {secretsHref ? (
            <Link href={secretsHref} className={`font-mono text-[13px] ${textLinkStyle}`}>
              {connection.credentialSecretName}
            </Link>
          ) : (
            <span className="font-mono text-[13px]">{connection.credentialSecretName}</span>
          )}
          {connection.apiBaseUrl !== DEFAULT_API_BASE_URL[connection.provider] ? (
            <span className="ml-1.5 text-fg-muted">
              · <span className="font-mono text-[13px]">{connection.apiBaseUrl}</span>
            </span>
          ) : null}
        </DetailRow>
        <DetailRow label="Last check">
          {checking ? (
            <span className="inline-flex items-center gap-2 text-fg">
              <Spinner size="sm" className="text-accent-600" />
              Checking {name}’s deliveries…
            </span>
          ) : connection.lastCheckAt ? (
            <InlineTime at={connection.lastCheckAt} now={now} />
          ) : (
            <span className="text-fg-muted">Not yet</span>
          )}
        </DetailRow>
        <DetailRow label="Next check">
          {!enabled ? (
            <span className="text-fg-muted">Paused while the webhook is disabled</span>
          ) : checking ? (
            <span className="text-fg-muted">After this one</span>
          ) : connection.nextCheckAt ? (
            <InlineTime at={connection.nextCheckAt} now={now} future />
          ) : (
            <span className="text-fg-muted">Soon</span>
          )}
        </DetailRow>
        <DetailRow label="Recovered">
          <p>
            {connection.lastCheckAt ? (
              connection.lastMissing === 0 ? (
                <>Last check: nothing missing.</>
              ) : (
                <>
                  Last check: {count(connection.lastMissing, 'delivery', 'deliveries')} missing from the log,{' '}
                  {connection.lastRecovered === connection.lastMissing ? 'all' : connection.lastRecovered.toLocaleString('en')} asked for again.
                </>
              )
            ) : (
              <span className="text-fg-muted">No check yet.</span>
            )}
          </p>
          <p className="mt-0.5 text-fg-muted">
            Last 7 days: {count(connection.recoveredLast7Days, 'delivery', 'deliveries')} recovered into the log
            {connection.recoveredLast7Days > 0 ? ', marked “Recovered” there.' : '.'}
          </p>
        </DetailRow>
      </dl>
    </>
  );
}

/** Where definition files declare the connection, what to do instead of the dashboard's form. */
function filesDecide(definedIn: 'managed' | 'repository', what: 'add' | 'change'): string {
  const action = what === 'add' ? 'to connect it, add a connection section to' : 'to change or remove it, edit the connection section of';
  return definedIn === 'repository'
    ? `This factory’s webhooks are defined in its git repository: ${action} the webhook’s definition file on the production branch.`
    : `This factory keeps its webhooks in definition files: ${action} the webhook’s definition file and apply it.`;
}

/** The Connection card, or null when no connection serves the webhook's signature scheme. */
export function ConnectionCard({
  factorySlug,
  webhook,
  connection,
  manage,
  definedIn,
  secretNames,
  now,
}: {
  factorySlug: string;
  webhook: { uid: string; authMode: string; signatureScheme: string | null; enabled: boolean };
  connection: ConnectionView | null;
  /** The user may manage the webhook (admins). */
  manage: boolean;
  /**
   * Where the factory's webhooks are defined when not in the dashboard: their
   * definition files declare the connection, and only an apply changes it.
   */
  definedIn: 'managed' | 'repository' | null;
  secretNames: string[];
  /** When the page was read (for "2 min ago" and "in 14 min"). */
  now: number;
}) {
  const kinds = webhook.authMode === 'signature' ? connectionKinds(webhook.signatureScheme) : [];
  if (kinds.length === 0) return null;
  const name = PROVIDER_NAME[connection?.provider ?? kinds[0]!.value];
  const secretsHref = `/f/${factorySlug}/secrets`;
  const title = (
    <span className="inline-flex items-center gap-2">
      Connection
      {connection ? (
        <Badge tone={connection.lastError && !connection.lastError.startsWith('Incomplete') ? 'danger' : 'success'} dot>
          {connection.lastError && !connection.lastError.startsWith('Incomplete') ? 'Failing' : 'Connected'}
        </Badge>
      ) : null}
    </span>
  );

  if (!connection) {
    const description = `Connect this webhook to ${name}’s API: Tripline creates ${name}’s hook with the signing secret, and asks ${name} again for deliveries that never arrived.`;
    const available = kinds.some((kind) => kind.available);
    const blocked = !available
      ? `Connecting ${name} is not available in this version yet.`
      : definedIn
        ? `Not connected. ${filesDecide(definedIn, 'add')}`
        : !manage
          ? 'Not connected. An admin connects it on this page.'
          : null;
    if (blocked) {
      return (
        <Card role="region" aria-label="Connection">
          <CardHeader title={title} description={description} />
          <CardBody>
            <p className="text-fg-muted">{blocked}</p>
          </CardBody>
        </Card>
      );
    }
    return (
      <ConnectionControls
        title={title}
        description={description}
        connected={false}
        checking={false}
        hasProviderHook={false}
        form={{ factorySlug, uid: webhook.uid, providerName: name, providers: kinds, secretNames, secretsHref }}
      />
    );
  }

  // A pass holds the lease, or one is due at once (Check now): the loop takes it within moments.
  const checking = connection.checking || (webhook.enabled && connection.nextCheckAt !== null && connection.nextCheckAt.getTime() <= now);
  const description = `Tripline manages ${name}’s hook for this webhook and asks ${name} again for deliveries that never arrived.`;
  const details = <ConnectionDetails connection={connection} checking={checking} enabled={webhook.enabled} secretsHref={manage ? secretsHref : null} now={now} />;
  if (!manage) {
    return (
      <Card role="region" aria-label="Connection">
        <CardHeader title={title} description={description} />
        {details}
      </Card>
    );
  }
  return (
    <ConnectionControls
      title={title}
      description={description}
      connected
      filesDecide={definedIn ? filesDecide(definedIn, 'change') : null}
      checking={checking}
      hasProviderHook={connection.providerHookId !== null}
      details={details}
      form={{
        factorySlug,
        uid: webhook.uid,
        providerName: name,
        providers: kinds,
        secretNames,
        secretsHref,
        initial: {
          provider: connection.provider,
          apiBaseUrl: connection.apiBaseUrl,
          credentialSecretName: connection.credentialSecretName,
          target: connection.target,
          eventTypes: connection.eventTypes,
        },
      }}
    />
  );
}
