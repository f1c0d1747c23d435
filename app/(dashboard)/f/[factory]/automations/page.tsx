import type { Metadata } from 'next';
import { AutomationsTabs } from '@/components/factories/automations-tabs';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { requireFactoryPage } from '@/lib/auth/current-user';

export const metadata: Metadata = { title: 'Automations' };

// GET /f/[factory]/automations: the Automations tab
export default async function AutomationsPage({ params }: { params: Promise<{ factory: string }> }) {
  const { factory } = await requireFactoryPage((await params).factory);
  return (
    <>
      <PageHeader title="Automations" description="Automations run when a delivery to one of their webhooks matches a trigger's filter." />
      <AutomationsTabs slug={factory.slug} active="automations" />
      <EmptyState bordered title="No automations yet" description="Automations and their webhook triggers will be listed here." />
    </>
  );
}
