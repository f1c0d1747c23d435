import type { Metadata } from 'next';
import Link from 'next/link';
import { DefinitionsNotice } from '@/components/definitions/definitions-notice';
import { AutomationsTabs } from '@/components/factories/automations-tabs';
import { HealthBadge } from '@/components/health/health-badge';
import { WebhookBadges } from '@/components/webhooks/webhook-badges';
import { WebhookIcon } from '@/components/webhooks/webhook-icon';
import { Button, ButtonLink } from '@/components/ui/button';
import { Card, CardHeader } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { DataTable, TD, TR } from '@/components/ui/table';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { getDefinitionsStatus } from '@/lib/domain/definitions/service';
import { getScheme } from '@/lib/ingress/signatures/registry';
import { authModeLabels } from '@/lib/domain/webhooks/schemas';
import { listWebhooks, MAX_WEBHOOKS_PER_FACTORY } from '@/lib/domain/webhooks/service';
import { dateFormat, dateTimeFormat } from '@/components/format';

export const metadata: Metadata = { title: 'Webhooks' };

function NoValue() {
  return (
    <>
      <span aria-hidden="true" className="text-fg-subtle">
        —
      </span>
      <span className="sr-only">None</span>
    </>
  );
}

// GET /f/[factory]/automations/webhooks: the Webhooks tab; everyone reads it, admins manage
export default async function WebhooksPage({ params }: { params: Promise<{ factory: string }> }) {
  const context = await requireFactoryPage((await params).factory);
  const { factory } = context;
  const [webhooks, definitions] = await Promise.all([listWebhooks(factory.id), getDefinitionsStatus(factory.id)]);
  const manage = context.can('factory:manage');
  // A repository-backed factory's webhooks are created by commits, not here.
  const creates = manage && definitions.configSource !== 'repository';
  const atLimit = webhooks.length >= MAX_WEBHOOKS_PER_FACTORY;
  const base = `/f/${factory.slug}/automations/webhooks`;

  // The server refuses the 21st webhook anyway; the disabled button says why before anyone fills the form.
  const newWebhook = creates ? (
    atLimit ? (
      <div className="flex items-center gap-3">
        <p id="webhook-limit" className="max-w-64 text-right text-[13px] leading-5 text-fg-muted">
          Limit reached: delete a webhook to create another.
        </p>
        <Button type="button" disabled aria-describedby="webhook-limit">
          New webhook
        </Button>
      </div>
    ) : (
      <ButtonLink href={`${base}/new`}>New webhook</ButtonLink>
    )
  ) : null;

  return (
    <>
      <PageHeader title="Automations" description="Automations run when a delivery to one of their webhooks matches a trigger's filter." />
      <AutomationsTabs slug={factory.slug} active="webhooks" />
      <DefinitionsNotice status={definitions} factorySlug={factory.slug} manage={manage} />
      {webhooks.length === 0 ? (
        <EmptyState
          bordered
          icon={<WebhookIcon />}
          title="No webhooks yet"
          description={
            creates
              ? 'A webhook gives GitHub, Stripe, a cron job or your own app a URL to POST JSON to. Automations start when a delivery matches their trigger.'
              : definitions.configSource === 'repository'
                ? 'A webhook appears here when a commit on the production branch adds its file, webhooks/<name>.yaml.'
                : 'A webhook gives an external system a URL to POST JSON to. Admins create them; they will be listed here.'
          }
          action={newWebhook}
        />
      ) : (
        <Card>
          <CardHeader
            title={`${webhooks.length} of ${MAX_WEBHOOKS_PER_FACTORY} webhooks`}
            description="Each webhook has its own ingress URL and credential. Automations subscribe to one with a Webhook trigger."
            actions={newWebhook}
          />
          <DataTable
            columns={[
              { header: 'Name' },
              { header: 'Authentication' },
              { header: 'Provider' },
              { header: 'State' },
              { header: 'Created' },
              { header: 'Health' },
            ]}
          >
            {webhooks.map((webhook) => (
              <TR key={webhook.uid}>
                <TD>
                  <Link
                    href={`${base}/${webhook.uid}`}
                    className="font-medium text-fg hover:text-accent-700 hover:underline hover:underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
                  >
                    {webhook.name}
                  </Link>
                  <div className="font-mono text-xs text-fg-subtle">{webhook.uid}</div>
                </TD>
                <TD label="Authentication" className="whitespace-nowrap text-fg-muted">{authModeLabels[webhook.authMode]}</TD>
                <TD label="Provider" className="text-fg-muted">
                  {webhook.signatureScheme ? (getScheme(webhook.signatureScheme)?.displayName ?? webhook.signatureScheme) : <NoValue />}
                </TD>
                <TD label="State">
                  <WebhookBadges state={webhook.state} secretChangePending={webhook.secretChangePending} />
                </TD>
                <TD label="Created" className="whitespace-nowrap text-fg-muted">{dateFormat.format(webhook.createdAt)}</TD>
                <TD label="Health">
                  <HealthBadge state={webhook.health.state} reason={webhook.health.reason} />
                  <div className="mt-1 text-xs whitespace-nowrap text-fg-muted">
                    {webhook.health.lastAcceptedAt ? `Last accepted ${dateTimeFormat.format(webhook.health.lastAcceptedAt)}` : 'Nothing accepted yet'}
                  </div>
                </TD>
              </TR>
            ))}
          </DataTable>
        </Card>
      )}
    </>
  );
}
