import type { Metadata } from 'next';
import { CreateFactoryForm } from '@/components/factories/create-factory-form';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { requireUser } from '@/lib/domain/auth/current-user';
import { listFactoriesPage, mayCreateFactories } from '@/lib/domain/factories/service';

export const metadata: Metadata = { title: 'New factory' };

const lockIcon = (
  <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
    <rect x="3" y="11" width="18" height="11" rx="2" />
    <path d="M7 11V7a5 5 0 0 1 10 0v4" />
  </svg>
);

// GET /factories/new: the form for those TRIPLINE_FACTORY_CREATION allows; for others, how to get access
export default async function NewFactoryPage() {
  const user = await requireUser();
  const { total: memberOf } = await listFactoriesPage(user.id, { limit: 1 });
  if (!mayCreateFactories(user)) {
    return (
      <>
        <PageHeader title={memberOf === 0 ? 'Welcome to Tripline' : 'New factory'} />
        <Card className="max-w-xl">
          <EmptyState
            icon={lockIcon}
            title="Only instance admins create factories here"
            description={
              memberOf === 0
                ? 'You are not a member of any factory yet. Ask an admin of the factory you work in for an invitation link, or ask an instance admin to create a factory for you.'
                : 'Ask an instance admin of this Tripline to create the factory and invite you as its admin.'
            }
          />
        </Card>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title="New factory"
        description={
          memberOf === 0
            ? 'You are not a member of any factory yet. Create one (you become its admin), or ask an admin to invite you to theirs.'
            : 'A factory is a workspace with its own webhooks, automations, secrets and members. You become its admin.'
        }
      />
      <CreateFactoryForm />
    </>
  );
}
