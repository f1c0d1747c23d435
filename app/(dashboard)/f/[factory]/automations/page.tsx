import type { Metadata } from 'next';
import Link from 'next/link';
import { firesNever, triggerWebhookOption, TriggerWebhookBadge } from '@/components/automations/webhook-option';
import { Timestamp } from '@/components/deliveries/timestamp';
import { AutomationsTabs } from '@/components/factories/automations-tabs';
import { Badge } from '@/components/ui/badge';
import { ButtonLink } from '@/components/ui/button';
import { Card, CardHeader } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Table, TBody, TD, TH, THead, TR } from '@/components/ui/table';
import { requireFactoryPage } from '@/lib/auth/current-user';
import { listAutomations } from '@/lib/automations/service';

export const metadata: Metadata = { title: 'Automations' };

// GET /f/[factory]/automations: the Automations tab; everyone reads it, editors and admins edit
export default async function AutomationsPage({ params }: { params: Promise<{ factory: string }> }) {
  const context = await requireFactoryPage((await params).factory);
  const { factory } = context;
  const automations = await listAutomations(factory.id);
  const edit = context.can('automations:edit');
  const base = `/f/${factory.slug}/automations`;
  const newAutomation = edit ? <ButtonLink href={`${base}/new`}>New automation</ButtonLink> : null;

  return (
    <>
      <PageHeader title="Automations" description="Automations run when a delivery to one of their webhooks matches a trigger's filter." />
      <AutomationsTabs slug={factory.slug} active="automations" />
      {automations.length === 0 ? (
        <EmptyState
          bordered
          title="No automations yet"
          description={
            edit
              ? 'An automation starts a run with its prompt when a delivery to one of its webhooks matches a trigger’s filter.'
              : 'An automation starts a run when a delivery to one of its webhooks matches. Editors create them; they will be listed here.'
          }
          action={newAutomation}
        />
      ) : (
        <Card>
          <CardHeader
            title={`${automations.length} ${automations.length === 1 ? 'automation' : 'automations'}`}
            description="Each trigger names a webhook; its deliveries that match the trigger’s payload filter start a run."
            actions={newAutomation}
          />
          <Table>
            <THead>
              <TR>
                <TH>Name</TH>
                <TH>State</TH>
                <TH>Triggers</TH>
                <TH numeric>Runs</TH>
                <TH>Last run</TH>
              </TR>
            </THead>
            <TBody>
              {automations.map((automation) => (
                <TR key={automation.id} data-automation-id={automation.id}>
                  <TD className="py-3">
                    <Link
                      href={`${base}/${automation.id}`}
                      className="font-medium text-fg hover:text-accent-700 hover:underline hover:underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600"
                    >
                      {automation.name}
                    </Link>
                  </TD>
                  <TD label="State" className="py-3">
                    <Badge tone={automation.enabled ? 'success' : 'neutral'} dot>
                      {automation.enabled ? 'Enabled' : 'Disabled'}
                    </Badge>
                  </TD>
                  <TD label="Triggers" className="py-3">
                    {automation.triggers.length === 0 ? (
                      <span className="text-fg-muted">None: never runs</span>
                    ) : (
                      <ul className="flex flex-col gap-1">
                        {automation.triggers.map(({ index, trigger, webhook }) => {
                          const { state } = triggerWebhookOption(webhook);
                          return (
                            <li key={index} className="flex flex-wrap items-center gap-x-2 gap-y-1">
                              <span className={firesNever(state) ? 'text-fg-muted line-through' : 'text-fg'}>{webhook.name ?? webhook.uid}</span>
                              {trigger.filter.payload ? <span className="text-xs text-fg-subtle">with payload filter</span> : null}
                              <TriggerWebhookBadge state={state} />
                            </li>
                          );
                        })}
                      </ul>
                    )}
                  </TD>
                  <TD numeric label="Runs" className="py-3 text-fg-muted">
                    {automation.runCount.toLocaleString('en')}
                  </TD>
                  <TD label="Last run" className="py-3">
                    {automation.lastRunAt ? <Timestamp at={automation.lastRunAt} /> : <span className="text-fg-muted">Never</span>}
                  </TD>
                </TR>
              ))}
            </TBody>
          </Table>
        </Card>
      )}
    </>
  );
}
