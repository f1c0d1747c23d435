import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { cache, type ReactNode } from 'react';
import { DeleteWebhook } from '@/components/webhooks/delete-webhook';
import { ProviderSecretForm } from '@/components/webhooks/provider-secret-form';
import { RotateSecret } from '@/components/webhooks/rotate-secret';
import { SchemeSetup } from '@/components/webhooks/scheme-setup';
import { WebhookBadges } from '@/components/webhooks/webhook-badges';
import { WebhookEnabledSwitch } from '@/components/webhooks/webhook-enabled-switch';
import { Alert } from '@/components/ui/alert';
import { Card, CardBody, CardHeader } from '@/components/ui/card';
import { CopyField } from '@/components/ui/copy-button';
import { PageHeader } from '@/components/ui/page-header';
import { requireFactoryPage } from '@/lib/auth/current-user';
import { AppError } from '@/lib/http/errors';
import { listSecrets } from '@/lib/secrets/service';
import { getScheme } from '@/lib/signatures/registry';
import { authModeLabels } from '@/lib/webhooks/schemas';
import { getWebhook, secretIsGenerated, type WebhookView } from '@/lib/webhooks/service';

const dateTimeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

// Cached so the metadata and the page share one query.
const loadWebhook = cache(async (factoryId: string, uid: string): Promise<WebhookView> => {
  try {
    return await getWebhook(factoryId, uid);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') notFound();
    throw error;
  }
});

export async function generateMetadata({ params }: { params: Promise<{ factory: string; uid: string }> }): Promise<Metadata> {
  const { factory: slug, uid } = await params;
  const { factory } = await requireFactoryPage(slug);
  return { title: (await loadWebhook(factory.id, uid)).name };
}

/** Registry hints are phrases ("the app’s Signing Secret"); alone under a field they read as a sentence. */
const sentence = (phrase: string) => `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}.`;

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 px-5 py-3.5 sm:grid-cols-[11rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-[13px] font-medium text-fg-muted sm:pt-0.5">{label}</dt>
      <dd className="min-w-0 text-fg">{children}</dd>
    </div>
  );
}

// GET /f/[factory]/automations/webhooks/[uid]: every member reads it; admins manage it
export default async function WebhookPage({ params }: { params: Promise<{ factory: string; uid: string }> }) {
  const { factory: slug, uid } = await params;
  const context = await requireFactoryPage(slug);
  const { factory } = context;
  const webhook = await loadWebhook(factory.id, uid);
  const manage = context.can('factory:manage');
  const scheme = webhook.signatureScheme ? getScheme(webhook.signatureScheme) : undefined;
  const generated = secretIsGenerated(webhook.authMode, webhook.signatureScheme);
  const base = `/f/${factory.slug}/automations`;
  const sharedWith = manage
    ? ((await listSecrets(factory.id)).find((secret) => secret.name === webhook.secretName)?.usedBy ?? [])
        .filter((user) => user.uid !== webhook.uid)
        .map((user) => user.name)
    : [];

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
        {webhook.awaitingSecret ? (
          <Alert tone="warning" title="Waiting for the provider’s secret: every request is refused (401) until you enter it">
            {scheme ? <SchemeSetup scheme={scheme} className="mt-3" /> : null}
            {manage ? (
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
            the old value; it takes the new one up when it next applies.{' '}
            {manage ? 'Turn Enabled off and on to apply it.' : 'An admin applies it by turning Enabled off and on.'}
          </Alert>
        ) : null}

        <Card>
          <CardHeader title="Details" />
          <dl className="divide-y divide-line">
            <Detail label="Ingress URL">
              <CopyField value={webhook.ingressUrl} aria-label="Ingress URL" copyLabel="Copy URL" />
              {webhook.authMode === 'url_token' ? (
                <p className="mt-1.5 text-[13px] text-fg-muted">The URL contains the secret in place of {'{token}'}; it was shown once at creation.</p>
              ) : null}
            </Detail>
            <Detail label="UID">
              <span className="font-mono text-[13px]">{webhook.uid}</span>
            </Detail>
            <Detail label="Authentication">{authModeLabels[webhook.authMode]}</Detail>
            {webhook.authMode === 'signature' ? (
              <Detail label="Provider scheme">{scheme?.displayName ?? webhook.signatureScheme}</Detail>
            ) : null}
            <Detail label="Secret name">
              {manage ? (
                <Link href={`/f/${factory.slug}/secrets`} className="font-mono text-[13px] text-accent-700 hover:underline hover:underline-offset-2">
                  {webhook.secretName}
                </Link>
              ) : (
                <span className="font-mono text-[13px]">{webhook.secretName}</span>
              )}
            </Detail>
            <Detail label="Delivery ID header">
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
            </Detail>
            <Detail label="Created">{dateTimeFormat.format(webhook.createdAt)}</Detail>
            <Detail label="Last delivery">{webhook.lastDeliveryAt ? dateTimeFormat.format(webhook.lastDeliveryAt) : 'Never'}</Detail>
          </dl>
        </Card>

        {scheme && !webhook.awaitingSecret ? (
          <Card>
            <CardHeader title={`Set up ${scheme.displayName}`} description="What to configure on the provider’s side." />
            <CardBody>
              <SchemeSetup scheme={scheme} />
            </CardBody>
          </Card>
        ) : null}

        {manage ? (
          <Card>
            <CardHeader title="Manage" description="Changes take effect immediately." />
            <div className="divide-y divide-line">
              <section aria-label="Enabled" className="px-5 py-4">
                <WebhookEnabledSwitch factorySlug={factory.slug} uid={webhook.uid} enabled={webhook.enabled} />
              </section>
              {generated ? (
                <section aria-label="Rotate secret" className="px-5 py-4">
                  <RotateSecret factorySlug={factory.slug} uid={webhook.uid} urlToken={webhook.authMode === 'url_token'} sharedWith={sharedWith} />
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
              <section aria-label="Delete webhook" className="px-5 py-4">
                <DeleteWebhook factorySlug={factory.slug} uid={webhook.uid} name={webhook.name} />
              </section>
            </div>
          </Card>
        ) : null}
      </div>
    </>
  );
}
