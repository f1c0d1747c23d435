import { redirect } from 'next/navigation';
import { getCurrentUser } from '@/lib/domain/auth/current-user';
import { listFactoriesPage } from '@/lib/domain/factories/service';
import { needsFirstRun } from '@/lib/domain/users/service';

// GET /: send each visitor where they belong.
export default async function Home() {
  if (await needsFirstRun()) redirect('/setup');
  const user = await getCurrentUser();
  if (!user) redirect('/signin');
  const [first] = (await listFactoriesPage(user.id, { limit: 1 })).factories;
  redirect(first ? `/f/${first.slug}/automations` : '/factories/new');
}
