import { redirect } from 'next/navigation';
import { getCurrentUser } from '@/lib/domain/auth/current-user';
import { listFactoriesForUser } from '@/lib/domain/factories/service';
import { needsFirstRun } from '@/lib/domain/users/service';

// GET /: send each visitor where they belong.
export default async function Home() {
  if (await needsFirstRun()) redirect('/setup');
  const user = await getCurrentUser();
  if (!user) redirect('/signin');
  const [first] = await listFactoriesForUser(user.id);
  redirect(first ? `/f/${first.slug}/automations` : '/factories/new');
}
