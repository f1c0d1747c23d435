import type { Metadata } from 'next';
import { cache } from 'react';
import { AutomationForm } from '@/components/automations/automation-form';
import { DeleteAutomation } from '@/components/automations/delete-automation';
import { readConditionParam, triggerFormValues, triggerWithCondition } from '@/components/automations/form-values';
import { runControlFormValues } from '@/components/automations/run-control-values';
import { triggerWebhookOption, type WebhookOption } from '@/components/automations/webhook-option';
import { RunsCard } from '@/components/runs/runs-card';
import { Badge } from '@/components/ui/badge';
import { Card, CardHeader } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { orNotFound, requireFactoryPage } from '@/lib/domain/auth/current-user';
import { getAutomation, type AutomationView } from '@/lib/domain/automations/service';
import { listRuns } from '@/lib/domain/runs/service';
import { listWebhooks } from '@/lib/domain/webhooks/service';

type Params = Promise<{ factory: string; id: string }>;

// Cached so the metadata and the page share one query.
const loadAutomation = cache((factoryId: string, id: string): Promise<AutomationView> => orNotFound(() => getAutomation(factoryId, id)));

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { factory: slug, id } = await params;
  const { factory } = await requireFactoryPage(slug);
  return { title: (await loadAutomation(factory.id, id)).name };
}

type SearchParams = Record<string, string | string[] | undefined>;

// GET /f/[factory]/automations/[id]?trigger=&condition=: the editor and the runs; every member reads it, editors and admins edit.
// Filter on this passes a trigger index and a picked condition: it is merged into that trigger's filter, unsaved.
export default async function AutomationPage({ params, searchParams }: { params: Params; searchParams: Promise<SearchParams> }) {
  const { factory: slug, id } = await params;
  const search = await searchParams;
  const context = await requireFactoryPage(slug);
  const { factory } = context;
  const automation = await loadAutomation(factory.id, id);
  const edit = context.can('automations:edit');
  const base = `/f/${factory.slug}/automations`;
  const [webhooks, runs] = await Promise.all([listWebhooks(factory.id), listRuns(factory.id, { automationId: automation.id })]);

  // The live webhooks, then any deleted one a saved trigger still names (it stays visible, marked).
  const options: WebhookOption[] = webhooks.map((webhook) => ({ uid: webhook.uid, name: webhook.name, state: webhook.state }));
  for (const { webhook } of automation.triggers) {
    if (!options.some((option) => option.uid === webhook.uid)) options.push(triggerWebhookOption(webhook));
  }

  const triggers = automation.triggers.map(({ trigger }) => triggerFormValues(trigger));
  const condition = edit ? readConditionParam(search.condition) : null;
  const index = Number(search.trigger);
  const prefill =
    condition && Number.isInteger(index) && triggers[index] ? { index, ...triggerWithCondition(triggers[index], condition) } : undefined;

  return (
    <>
      <PageHeader
        title={automation.name}
        meta={
          <Badge tone={automation.enabled ? 'success' : 'neutral'} dot>
            {automation.enabled ? 'Enabled' : 'Disabled'}
          </Badge>
        }
        description={edit ? 'Changes apply to the next delivery once saved.' : 'You can read this automation and test its filters; editors and admins change it.'}
        breadcrumbs={[{ label: 'Automations', href: base }, { label: automation.name }]}
      />
      <div className="flex flex-col gap-6">
        <AutomationForm
          factorySlug={factory.slug}
          automationId={automation.id}
          webhooks={options}
          readOnly={!edit}
          initialValues={{
            name: automation.name,
            prompt: automation.prompt,
            enabled: automation.enabled,
            triggers,
            runControl: runControlFormValues(automation.runControl),
          }}
          prefill={prefill}
        />

        <RunsCard
          factorySlug={factory.slug}
          runs={runs}
          show="delivery"
          showKey={automation.runControl !== null}
          title="Runs"
          description={`Every run of this automation, newest first${runs.length >= 50 ? ' (the latest 50)' : ''}. ${automation.runControl ? 'Each stands for one matching delivery: its run, or what run control made of it.' : 'Each was started by one delivery.'}`}
          empty={{ title: 'No runs yet', description: 'A run starts when a delivery to one of the triggers’ webhooks matches its payload filter.' }}
        />

        {edit ? (
          <Card>
            <CardHeader title="Manage" />
            <section aria-label="Delete automation" className="px-5 py-4">
              <DeleteAutomation factorySlug={factory.slug} id={automation.id} name={automation.name} runCount={automation.runCount} />
            </section>
          </Card>
        ) : null}
      </div>
    </>
  );
}
