import type { Metadata } from 'next';
import { AutomationForm } from '@/components/automations/automation-form';
import { emptyTrigger, readConditionParam, triggerWithCondition } from '@/components/automations/form-values';
import { emptyRunControl } from '@/components/automations/run-control-values';
import { AdminRequired } from '@/components/factories/admin-required';
import { PageHeader } from '@/components/ui/page-header';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { listWebhooks } from '@/lib/domain/webhooks/service';

/** The first trigger: the webhook Filter on this came from (or the only one), with the picked condition. */
function firstTrigger(webhooks: { uid: string; state: string }[], search: SearchParams) {
  const asked = typeof search.webhook === 'string' ? webhooks.find((webhook) => webhook.uid === search.webhook && webhook.state !== 'deleted') : undefined;
  const webhookUid = asked?.uid ?? (webhooks.length === 1 ? webhooks[0]!.uid : '');
  const condition = readConditionParam(search.condition);
  if (!condition) return { ...emptyTrigger, webhookUid };
  const { field, text } = triggerWithCondition(emptyTrigger, condition);
  return { ...emptyTrigger, webhookUid, [field]: text };
}

export const metadata: Metadata = { title: 'New automation' };

type SearchParams = Record<string, string | string[] | undefined>;

// GET /f/[factory]/automations/new?webhook=&condition=: editors and admins; Filter on this passes the webhook and the picked condition
export default async function NewAutomationPage({ params, searchParams }: { params: Promise<{ factory: string }>; searchParams: Promise<SearchParams> }) {
  const context = await requireFactoryPage((await params).factory);
  const search = await searchParams;
  const { factory } = context;
  const base = `/f/${factory.slug}/automations`;
  const edit = context.can('automations:edit');
  const webhooks = edit ? await listWebhooks(factory.id) : [];

  return (
    <>
      <PageHeader
        title="New automation"
        description="A prompt, and the webhook deliveries that start a run of it."
        breadcrumbs={[{ label: 'Automations', href: base }, { label: 'New automation' }]}
      />
      {edit ? (
        <AutomationForm
          factorySlug={factory.slug}
          webhooks={webhooks.map((webhook) => ({ uid: webhook.uid, name: webhook.name, state: webhook.state }))}
          // A first trigger is almost always wanted; it can be removed.
          initialValues={{ name: '', prompt: '', enabled: true, triggers: [firstTrigger(webhooks, search)], runControl: emptyRunControl }}
        />
      ) : (
        <AdminRequired factoryName={factory.name} task="create automations" role="editor" />
      )}
    </>
  );
}
