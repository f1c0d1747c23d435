import type { Metadata } from 'next';
import { CreateFactoryForm } from '@/components/factories/create-factory-form';
import { PageHeader } from '@/components/ui/page-header';
import { requireUser } from '@/lib/auth/current-user';
import { listFactoriesForUser } from '@/lib/factories/service';

export const metadata: Metadata = { title: 'New factory' };

// GET /factories/new
export default async function NewFactoryPage() {
  const user = await requireUser();
  const factories = await listFactoriesForUser(user.id);
  return (
    <>
      <PageHeader
        title="New factory"
        description={
          factories.length === 0
            ? 'You are not a member of any factory yet. Create one (you become its admin), or ask an admin to add you to theirs.'
            : 'A factory is a workspace with its own webhooks, automations, secrets and members. You become its admin.'
        }
      />
      <CreateFactoryForm />
    </>
  );
}
