import type { Metadata } from 'next';
import Link from 'next/link';
import { DetailRow } from '@/components/ui/detail-row';
import { ChipList } from '@/components/ui/chip-list';
import { cache } from 'react';
import { DeliveriesCard } from '@/components/deliveries/deliveries-card';
import { firstValue, loadDeliveryLog } from '@/lib/adapters/pages/delivery-log';
import { senderName } from '@/components/deliveries/origin-badge';
import { ConnectionCard } from '@/components/connections/connection-card';
import { getConnection } from '@/lib/domain/connections/service';
import { PROVIDER_NAME } from '@/lib/domain/connections/schemas';
import { DeleteWebhook } from '@/components/webhooks/delete-webhook';
import { HealthCard, type HealthChart } from '@/components/health/health-card';
import { deliveryStats, type StatsWindow } from '@/lib/domain/health/service';
import { EventTypeSettingForm } from '@/components/webhooks/event-type-setting-form';
import { IpAllowlistForm } from '@/components/webhooks/ip-allowlist-form';
import { headers } from 'next/headers';
import { clientAddress } from '@/lib/platform/entry/client-address';
import { CustomResponseForm } from '@/components/webhooks/custom-response-form';
import { CustomResponseSummary } from '@/components/webhooks/custom-response-summary';
import { FieldsCard } from '@/components/webhooks/fields-card';
import { HandshakeTokenReveal } from '@/components/webhooks/handshake-token';
import { ProviderSecretForm } from '@/components/webhooks/provider-secret-form';
import { RotateSecret } from '@/components/webhooks/rotate-secret';
import { SchemeSetup } from '@/components/webhooks/scheme-setup';
import { WebhookBadges } from '@/components/webhooks/webhook-badges';
import { WebhookEnabledSwitch } from '@/components/webhooks/webhook-enabled-switch';
import { Alert } from '@/components/ui/alert';
import { CodeBlock } from '@/components/ui/code-block';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { CopyField } from '@/components/ui/copy-button';
import { PageHeader } from '@/components/ui/page-header';
import { orNotFound, requireFactoryPage } from '@/lib/domain/auth/current-user';
import { RETENTION_DAYS, RETENTION_MIN_ENTRIES } from '@/lib/domain/deliveries/retention';
import { getFieldCatalogue } from '@/lib/domain/fields/service';
import { definitionPath } from '@/lib/domain/webhooks/definition-file';
import { readDefinitionFiles } from '@/lib/domain/definitions/service';
import { listSecrets } from '@/lib/domain/secrets/service';
import { getScheme } from '@/lib/ingress/signatures/registry';
import { metaVerifyToken } from '@/lib/ingress/signatures/meta';
import { authModeLabels } from '@/lib/domain/webhooks/schemas';
import { handshakeTokenState } from '@/lib/domain/webhooks/handshake-token';
import { getWebhook, readAppliedCredential, secretIsGenerated, webhookRowId, type WebhookView } from '@/lib/domain/webhooks/service';
import { testRequestCurl } from '@/lib/domain/webhooks/test-request';
import { dateTimeFormat, sentence } from '@/components/format';

// Cached so the metadata and the page share one query.
const loadWebhook = cache((factoryId: string, uid: string): Promise<WebhookView> => orNotFound(() => getWebhook(factoryId, uid)));

export async function generateMetadata({ params }: { params: Promise<{ factory: string; uid: string }> }): Promise<Metadata> {
  const { factory: slug, uid } = await params;
  const { factory } = await requireFactoryPage(slug);
  return { title: (await loadWebhook(factory.id, uid)).name };
}

/** Registry hints are phrases ("the app’s Signing Secret"); alone under a field they read as a sentence. */

type SearchParams = Record<string, string | string[] | undefined>;


// GET /f/[factory]/automations/webhooks/[uid]: every member reads it and its delivery log; admins manage it
export default async function WebhookPage({
  params,
  searchParams,
}: {
  params: Promise<{ factory: string; uid: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { factory: slug, uid } = await params;
  const context = await requireFactoryPage(slug);
  const { factory } = context;
  const webhook = await loadWebhook(factory.id, uid);
  const manage = context.can('factory:manage');
  const scheme = webhook.signatureScheme ? getScheme(webhook.signatureScheme) : undefined;
  const generated = secretIsGenerated(webhook.authMode, webhook.signatureScheme);
  const base = `/f/${factory.slug}/automations`;
  const webhookPath = `${base}/webhooks/${webhook.uid}`;
  const search = await searchParams;
  const window: StatsWindow = firstValue(search.window) === '7d' ? '7d' : '24h';
  const chart: HealthChart = firstValue(search.chart) === 'types' ? 'types' : 'status';
  // Independent reads: on PostgreSQL they run at once, on separate pooled connections.
  const [deliveryLog, stats, catalogue, connection] = await Promise.all([
    loadDeliveryLog(factory.id, webhook.uid, webhookPath, search),
    webhookRowId(factory.id, webhook.uid).then((id) => deliveryStats(id, window)),
    getFieldCatalogue(factory.id, webhook.uid),
    webhook.authMode === 'signature' ? getConnection(factory.id, webhook.uid) : null,
  ]);
  // Managed and repository-backed factories keep one file per webhook; a repository's are read-only here.
  const source = factory.configSource;
  const readOnly = source === 'repository';
  const file = source === 'dashboard' ? null : { path: definitionPath(webhook.name), content: (await readDefinitionFiles(factory.id))[definitionPath(webhook.name)] };
  // Standard Webhooks: admins get a test request signed with the applied secret (re-signed on every refresh while the log is empty).
  const signingSecret = manage && webhook.signatureScheme === 'standard-webhooks' ? await readAppliedCredential(factory.id, webhook.uid) : null;
  // Meta: the verify token its dashboard asks for, derived from the applied app secret; admins only.
  const metaSecret = manage && webhook.signatureScheme === 'meta' ? await readAppliedCredential(factory.id, webhook.uid) : null;
  const verifyToken = webhook.signatureScheme === 'meta' ? (metaSecret ? metaVerifyToken(metaSecret, webhook.uid) : null) : undefined;
  const testRequest = testRequestCurl({ ingressUrl: webhook.ingressUrl, authMode: webhook.authMode, scheme: webhook.signatureScheme, secret: signingSecret });
  const token = manage && scheme?.secretSource === 'handshake' ? await handshakeTokenState(factory.id, webhook.uid) : null;
  const secrets = manage ? await listSecrets(factory.id) : [];
  const sharedWith = (secrets.find((secret) => secret.name === webhook.secretName)?.usedBy ?? []).filter((user) => user.uid !== webhook.uid).map((user) => user.name);
  // The connection's API credential is any team secret but the webhook's own signing secret.
  const credentialNames = secrets.map((secret) => secret.name).filter((name) => name !== webhook.secretName);

  return (
    <>
      <PageHeader
        title={webhook.name}
        meta={<WebhookBadges state={webhook.state} secretChangePending={webhook.secretChangePending} />}
        description={
          scheme
            ? `Receives requests signed by ${scheme.displayName}.`
            : webhook.authMode === 'url_token'
              ? 'Receives requests whose URL carries its secret.'
              : 'Receives requests that carry its secret as a bearer token.'
        }
        breadcrumbs={[
          { label: 'Automations', href: base },
          { label: 'Webhooks', href: `${base}/webhooks` },
          { label: webhook.name },
        ]}
      />
      <div className="flex flex-col gap-6">
        {token ? (
          <Alert tone="info" title={`${scheme?.displayName ?? 'The provider'} sent its verification token`}>
            Notion asks you to paste this token back into the subscription’s Verify dialog. Tripline has stored it as this webhook’s secret.
            <HandshakeTokenReveal factorySlug={factory.slug} uid={webhook.uid} shownAt={token.state === 'shown' ? token.shownAt.toISOString() : null} />
          </Alert>
        ) : null}
        {webhook.awaitingSecret && scheme?.secretSource === 'handshake' ? (
          <Alert tone="info" title={`Waiting for ${scheme.displayName}’s first request, which carries the secret`}>
            <SchemeSetup scheme={scheme} className="mt-3" />
          </Alert>
        ) : webhook.awaitingSecret ? (
          <Alert tone="warning" title="Waiting for the provider’s secret: every request is refused (401) until you enter it">
            {scheme ? <SchemeSetup scheme={scheme} className="mt-3" verifyToken={verifyToken} /> : null}
            {manage && !readOnly ? (
              <div className="mt-4 rounded-lg border border-amber-200 bg-surface p-4 text-fg">
                <ProviderSecretForm factorySlug={factory.slug} uid={webhook.uid} submitLabel="Save secret" />
              </div>
            ) : (
              <p className="mt-3">An admin enters it on this page.</p>
            )}
          </Alert>
        ) : null}
        {webhook.secretChangePending ? (
          <Alert tone="warning" title="Secret change pending">
            The value of the team secret {webhook.secretName} changed after this webhook applied it. The webhook still checks
            the old value; it takes the new one up when {readOnly ? 'a change to the production branch applies' : 'it next applies'}.{' '}
            {manage ? 'Turn Enabled off and on to apply it.' : 'An admin applies it by turning Enabled off and on.'}
          </Alert>
        ) : null}

        <Card>
          <CardHeader title="Details" />
          <dl className="divide-y divide-line">
            <DetailRow label="Ingress URL">
              <CopyField value={webhook.ingressUrl} aria-label="Ingress URL" copyLabel="Copy URL" />
              {webhook.authMode === 'url_token' ? (
                <p className="mt-1.5 text-[13px] text-fg-muted">The URL contains the secret in place of {'{token}'}; it was shown once at creation.</p>
              ) : null}
            </DetailRow>
            <DetailRow label="UID">
              <span className="font-mono text-[13px]">{webhook.uid}</span>
            </DetailRow>
            <DetailRow label="Authentication">{authModeLabels[webhook.authMode]}</DetailRow>
            {webhook.authMode === 'signature' ? (
              <DetailRow label="Provider scheme">{scheme?.displayName ?? webhook.signatureScheme}</DetailRow>
            ) : null}
            <DetailRow label="Secret name">
              {manage ? (
                <Link href={`/f/${factory.slug}/secrets`} className="font-mono text-[13px] text-accent-700 hover:underline hover:underline-offset-2">
                  {webhook.secretName}
                </Link>
              ) : (
                <span className="font-mono text-[13px]">{webhook.secretName}</span>
              )}
            </DetailRow>
            <DetailRow label="Delivery ID header">
              {webhook.deliveryIdHeader ? (
                <span className="font-mono text-[13px]">{webhook.deliveryIdHeader}</span>
              ) : (
                <>
                  <span className="text-fg-muted">Not set</span>
                  {scheme?.deliveryIdHeader ? (
                    <span className="text-fg-muted">
                      {' '}
                      · {scheme.displayName}’s <span className="font-mono text-[13px]">{scheme.deliveryIdHeader}</span> header identifies deliveries
                    </span>
                  ) : null}
                </>
              )}
            </DetailRow>
            <DetailRow label="Event type">
              {webhook.authMode === 'signature' ? (
                <span className="text-fg-muted">{scheme ? `Named by ${scheme.displayName}’s scheme` : 'Not set'}</span>
              ) : webhook.eventTypeHeader ? (
                <>
                  Header <span className="font-mono text-[13px]">{webhook.eventTypeHeader}</span>
                </>
              ) : webhook.eventTypePath ? (
                <>
                  Body path <span className="font-mono text-[13px]">{webhook.eventTypePath}</span>
                </>
              ) : (
                <span className="text-fg-muted">Not set</span>
              )}
            </DetailRow>
            <DetailRow label="IP allowlist">
              {webhook.ipAllowlist.length > 0 ? (
                <ChipList label="Allowed ranges" items={webhook.ipAllowlist} />
              ) : (
                <span className="text-fg-muted">Every address</span>
              )}
            </DetailRow>
            <DetailRow label="Response">
              <CustomResponseSummary response={webhook.customResponse} />
            </DetailRow>
            <DetailRow label="Created">{dateTimeFormat.format(webhook.createdAt)}</DetailRow>
            <DetailRow label="Last delivery">{webhook.lastDeliveryAt ? dateTimeFormat.format(webhook.lastDeliveryAt) : 'Never'}</DetailRow>
          </dl>
        </Card>

        <HealthCard
          webhook={webhook}
          stats={stats}
          chart={chart}
          chartHref={(w, c) => {
            const query = new URLSearchParams({ ...(w === '24h' ? {} : { window: w }), ...(c === 'types' ? { chart: 'types' } : {}) }).toString();
            return query ? `${webhookPath}?${query}` : webhookPath;
          }}
          factorySlug={factory.slug}
          manage={manage}
        />

        <ConnectionCard
          factorySlug={factory.slug}
          webhook={webhook}
          connection={connection}
          manage={manage}
          definedIn={source === 'dashboard' ? null : source}
          secretNames={credentialNames}
          now={deliveryLog.now}
        />

        {file ? (
          <Card>
            <CardHeader
              title="Definition file"
              description={
                readOnly
                  ? 'From the applied commit of the factory’s repository: change it there.'
                  : 'Written by the dashboard. The file name is the webhook’s name, so this webhook cannot be renamed: renaming is deleting it and creating a new one, with a new UID and ingress URL.'
              }
            />
            <CardBody>
              <CodeBlock title={file.path} language="yaml" code={file.content ?? ''} aria-label={file.path} />
            </CardBody>
          </Card>
        ) : null}

        {scheme && !webhook.awaitingSecret ? (
          <Card>
            <CardHeader title={`Set up ${scheme.displayName}`} description="What to configure on the provider’s side." />
            <CardBody>
              <SchemeSetup scheme={scheme} verifyToken={verifyToken} />
            </CardBody>
          </Card>
        ) : null}

        <DeliveriesCard
          view={deliveryLog}
          webhook={{ uid: webhook.uid, authMode: webhook.authMode, ingressUrl: webhook.ingressUrl, providerName: senderName(webhook.signatureScheme, connection?.provider), testRequest, handshakes: Boolean(scheme?.handshake), allowlist: webhook.ipAllowlist.length > 0 }}
          entryPath={(id) => `${webhookPath}/deliveries/${encodeURIComponent(id)}`}
          retention={{ days: RETENTION_DAYS, entries: RETENTION_MIN_ENTRIES }}
          replayPath={manage ? `${webhookPath}/replay` : null}
        />

        <FieldsCard catalogue={catalogue} />

        {manage ? (
          <Card>
            <CardHeader
              title="Manage"
              description={readOnly ? 'Changes take effect immediately. Everything else comes from the repository.' : 'Changes take effect immediately.'}
            />
            <div className="divide-y divide-line">
              <section aria-label="Enabled" className="px-5 py-4">
                <WebhookEnabledSwitch factorySlug={factory.slug} uid={webhook.uid} enabled={webhook.enabled} />
              </section>
              {readOnly ? null : generated ? (
                <section aria-label="Rotate secret" className="px-5 py-4">
                  <RotateSecret
                    factorySlug={factory.slug}
                    uid={webhook.uid}
                    urlToken={webhook.authMode === 'url_token'}
                    sharedWith={sharedWith}
                    connectedTo={connection?.providerHookId ? PROVIDER_NAME[connection.provider] : null}
                  />
                </section>
              ) : webhook.awaitingSecret ? null : (
                <section aria-label="Replace provider secret" className="flex flex-col gap-3 px-5 py-4">
                  <div>
                    <h3 className="font-medium text-fg">Replace provider secret</h3>
                    <p className="mt-0.5 max-w-2xl text-fg-muted">
                      After rolling the secret on {scheme?.displayName ?? 'the provider'}’s side, enter the new one here. The old secret stops working
                      immediately, with no overlap. For a rollover without downtime, create a second webhook, move the sender to it, then delete this one.
                    </p>
                  </div>
                  <ProviderSecretForm
                    factorySlug={factory.slug}
                    uid={webhook.uid}
                    submitLabel="Replace secret"
                    successMessage="The new secret is in use."
                    hint={scheme ? sentence(scheme.secretHint) : undefined}
                  />
                </section>
              )}
              {readOnly || webhook.authMode === 'signature' ? null : (
                <section aria-label="Event type" className="px-5 py-4">
                  <EventTypeSettingForm
                    factorySlug={factory.slug}
                    uid={webhook.uid}
                    header={webhook.eventTypeHeader}
                    path={webhook.eventTypePath}
                  />
                </section>
              )}
              {readOnly ? null : (
                <section aria-label="IP allowlist" className="px-5 py-4">
                  <IpAllowlistForm factorySlug={factory.slug} uid={webhook.uid} ranges={webhook.ipAllowlist} address={clientAddress(await headers())} />
                </section>
              )}
              {readOnly ? null : (
                <section aria-label="Response" className="flex flex-col gap-3 px-5 py-4">
                  <div>
                    <h3 className="font-medium text-fg">Response</h3>
                    <p className="mt-0.5 max-w-2xl text-fg-muted">
                      What a sender receives when its delivery is accepted, or is a duplicate. Some senders expect a particular answer, such as 200 or a
                      body of <span className="font-mono text-[13px]">[accepted]</span>.
                    </p>
                  </div>
                  <CustomResponseForm factorySlug={factory.slug} uid={webhook.uid} response={webhook.customResponse} />
                </section>
              )}
              {readOnly ? null : (
                <section aria-label="Delete webhook" className="px-5 py-4">
                  <DeleteWebhook factorySlug={factory.slug} uid={webhook.uid} name={webhook.name} managed={source === 'managed'} />
                </section>
              )}
            </div>
          </Card>
        ) : null}
      </div>
    </>
  );
}
