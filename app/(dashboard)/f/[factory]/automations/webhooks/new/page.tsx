import type { Metadata } from 'next';
import { DefinitionsNotice } from '@/components/definitions/definitions-notice';
import { AdminRequired } from '@/components/factories/admin-required';
import { CreateWebhookForm } from '@/components/webhooks/create-webhook-form';
import { PageHeader } from '@/components/ui/page-header';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { getDefinitionsStatus } from '@/lib/domain/definitions/service';
import { listSecrets } from '@/lib/domain/secrets/service';
import { countWebhooks, MAX_WEBHOOKS_PER_FACTORY } from '@/lib/domain/webhooks/service';

export const metadata: Metadata = { title: 'New webhook' };

// GET /f/[factory]/automations/webhooks/new: admins only
export default async function NewWebhookPage({ params }: { params: Promise<{ factory: string }> }) {
  const context = await requireFactoryPage((await params).factory);
  const { factory } = context;
  const base = `/f/${factory.slug}/automations`;
  const manage = context.can('factory:manage');
  const [secrets, count] = manage ? await Promise.all([listSecrets(factory.id), countWebhooks(factory.id)]) : [[], 0];
  const definitions = await getDefinitionsStatus(factory.id);

  return (
    <>
      <PageHeader
        title="New webhook"
        description="A webhook gives a sender its own URL and credential. The secret is shown once, right after creation."
        breadcrumbs={[
          { label: 'Automations', href: base },
          { label: 'Webhooks', href: `${base}/webhooks` },
          { label: 'New webhook' },
        ]}
      />
      <DefinitionsNotice status={definitions} factorySlug={factory.slug} manage={manage} />
      {definitions.configSource === 'repository' ? null : manage ? (
        // The form decides about the limit itself: creating the last webhook
        // refreshes this page, and the result panel with the secret must stay.
        <CreateWebhookForm
          factorySlug={factory.slug}
          secretNames={secrets.map((secret) => secret.name)}
          atLimit={count >= MAX_WEBHOOKS_PER_FACTORY}
          limit={MAX_WEBHOOKS_PER_FACTORY}
        />
      ) : (
        <AdminRequired factoryName={factory.name} task="create webhooks" />
      )}
    </>
  );
}
