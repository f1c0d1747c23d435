import type { Metadata } from 'next';
import { AutomationForm } from '@/components/automations/automation-form';
import { AdminRequired } from '@/components/factories/admin-required';
import { PageHeader } from '@/components/ui/page-header';
import { requireFactoryPage } from '@/lib/auth/current-user';
import { listWebhooks } from '@/lib/webhooks/service';

export const metadata: Metadata = { title: 'New automation' };

// GET /f/[factory]/automations/new: editors and admins
export default async function NewAutomationPage({ params }: { params: Promise<{ factory: string }> }) {
  const context = await requireFactoryPage((await params).factory);
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
          initialValues={{ name: '', prompt: '', enabled: true, triggers: [{ webhookUid: webhooks.length === 1 ? webhooks[0]!.uid : '', payload: '' }] }}
        />
      ) : (
        <AdminRequired factoryName={factory.name} task="create automations" role="editor" />
      )}
    </>
  );
}
