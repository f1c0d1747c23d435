import type { ReactNode } from 'react';
import { AppShell } from '@/components/shell/app-shell';
import { requireUser } from '@/lib/domain/auth/current-user';
import { factoryNav } from '@/components/shell/factory-nav';
import { mayCreateFactories, switcherFactories } from '@/lib/domain/factories/service';

// Pages about the signed-in person rather than one factory.
export default async function AccountLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  const { factories, total } = await switcherFactories(user.id);
  const first = factories[0];
  return (
    <AppShell user={user} factories={factories} totalFactories={total} canCreateFactories={mayCreateFactories(user)} current={first} nav={first ? factoryNav(first.slug, first.role) : []}>
      {children}
    </AppShell>
  );
}
