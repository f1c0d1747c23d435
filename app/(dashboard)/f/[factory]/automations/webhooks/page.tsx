import type { Metadata } from 'next';
import { AutomationsTabs } from '@/components/factories/automations-tabs';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { requireFactoryPage } from '@/lib/auth/current-user';

export const metadata: Metadata = { title: 'Webhooks' };

// GET /f/[factory]/automations/webhooks: the Webhooks tab
export default async function WebhooksPage({ params }: { params: Promise<{ factory: string }> }) {
  const { factory } = await requireFactoryPage((await params).factory);
  return (
    <>
      <PageHeader title="Automations" description="Automations run when a delivery to one of their webhooks matches a trigger's filter." />
      <AutomationsTabs slug={factory.slug} active="webhooks" />
      <EmptyState bordered title="No webhooks yet" description="Webhooks give external systems a URL to send events to." />
    </>
  );
}
