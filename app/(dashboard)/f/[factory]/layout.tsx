import type { ReactNode } from 'react';
import { AppShell } from '@/components/shell/app-shell';
import { requireFactoryPage } from '@/lib/domain/auth/current-user';
import { factoryNav } from '@/components/shell/factory-nav';
import { mayCreateFactories, switcherFactories } from '@/lib/domain/factories/service';

export default async function FactoryLayout({ children, params }: { children: ReactNode; params: Promise<{ factory: string }> }) {
  const { factory: slug } = await params;
  const context = await requireFactoryPage(slug);
  const { factories, total } = await switcherFactories(context.user.id);
  return (
    <AppShell
      user={context.user}
      factories={factories}
      totalFactories={total}
      canCreateFactories={mayCreateFactories(context.user)}
      current={{ slug: context.factory.slug, name: context.factory.name, role: context.role }}
      nav={factoryNav(context.factory.slug, context.role)}
    >
      {children}
    </AppShell>
  );
}
