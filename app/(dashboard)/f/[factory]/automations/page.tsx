import type { Metadata } from 'next';
import Link from 'next/link';
import { firesNever, triggerWebhookOption, TriggerWebhookBadge } from '@/components/automations/webhook-option';
import { Timestamp } from '@/components/deliveries/timestamp';
import { AutomationsTabs } from '@/components/factories/automations-tabs';
import { Badge } from '@/components/ui/badge';
import { ButtonLink } from '@/components/ui/button';
import { Alert } from '@/components/ui/alert';
import { Card, CardFooter, CardHeader } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { PageHeader } from '@/components/ui/page-header';
import { DataTable, TD, TR } from '@/components/ui/table';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { AUTOMATIONS_PER_PAGE } from '@/lib/domain/automations/schemas';
import { listAutomations, type AutomationPage } from '@/lib/domain/automations/service';
import { toAppError } from '@/lib/platform/http/errors';

export const metadata: Metadata = { title: 'Automations' };

type SearchParams = Record<string, string | string[] | undefined>;

/** The page of automations ?cursor= asks for; a cursor that cannot be read shows the first page and says so. */
async function loadPage(factoryId: string, search: SearchParams): Promise<{ page: AutomationPage; cursor: string | null; badCursor: boolean }> {
  const raw = Array.isArray(search.cursor) ? search.cursor[0] : search.cursor;
  const cursor = raw ? raw : null;
  try {
    return { page: await listAutomations(factoryId, { cursor: cursor ?? undefined, limit: AUTOMATIONS_PER_PAGE }), cursor, badCursor: false };
  } catch (thrown) {
    // The service's own check of the cursor (its length, say) throws a ZodError: the same 422 as a cursor it cannot read.
    const error = toAppError(thrown);
    if (!(error.code === 'validation_failed' && cursor)) throw thrown;
    return { page: await listAutomations(factoryId, { limit: AUTOMATIONS_PER_PAGE }), cursor: null, badCursor: true };
  }
}

// GET /f/[factory]/automations?cursor=: the Automations tab, by name, 50 a page; everyone reads it, editors and admins edit
export default async function AutomationsPage({ params, searchParams }: { params: Promise<{ factory: string }>; searchParams: Promise<SearchParams> }) {
  const context = await requireFactoryPage((await params).factory);
  const { factory } = context;
  const { page, cursor, badCursor } = await loadPage(factory.id, await searchParams);
  const { automations, total } = page;
  const edit = context.can('automations:edit');
  const base = `/f/${factory.slug}/automations`;
  const newAutomation = edit ? <ButtonLink href={`${base}/new`}>New automation</ButtonLink> : null;

  return (
    <>
      <PageHeader title="Automations" description="Automations run when a delivery to one of their webhooks matches a trigger's filter." />
      <AutomationsTabs slug={factory.slug} active="automations" />
      {badCursor ? (
        <Alert tone="warning" className="mb-4">
          That page link is no longer valid, so the first page is shown.
        </Alert>
      ) : null}
      {total === 0 ? (
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
            title={`${total.toLocaleString('en')} ${total === 1 ? 'automation' : 'automations'}`}
            description="Each trigger names a webhook; its deliveries that match the trigger’s payload filter start a run."
            actions={newAutomation}
          />
          <DataTable
            columns={[
              { header: 'Name' },
              { header: 'State' },
              { header: 'Triggers' },
              { header: 'Runs', numeric: true },
              { header: 'Last run' },
            ]}
          >
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
          </DataTable>
          {cursor || page.nextCursor ? (
            <CardFooter align="between">
              <p className="text-[13px] text-fg-muted">
                {automations.length === 0 ? 'No automations on this page.' : `Showing ${automations.length.toLocaleString('en')} of ${total.toLocaleString('en')}, by name`}
              </p>
              <Pager
                label="Automation pages"
                first={cursor ? { href: base, text: 'First page' } : null}
                next={page.nextCursor ? { href: `${base}?cursor=${encodeURIComponent(page.nextCursor)}`, text: 'Next page' } : null}
              />
            </CardFooter>
          ) : null}
        </Card>
      )}
    </>
  );
}
