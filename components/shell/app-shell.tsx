import Link from 'next/link';
import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { CheckIcon } from '@/components/ui/icons';
import { Logo } from '@/components/shell/logo';
import { Menu, MenuLabel, menuItemClass } from '@/components/shell/menu';
import { MobileNav } from '@/components/shell/mobile-nav';
import { NavLink } from '@/components/shell/nav-link';
import { SignOutButton } from '@/components/shell/sign-out-button';
import { roleLabels, type Role } from '@/lib/domain/auth/roles';
import type { NavIcon, NavItem } from '@/components/shell/factory-nav';

type FactoryItem = { slug: string; name: string; role: Role };

function Initials({ text }: { text: string }) {
  const letters = text
    .split(/[\s@._-]+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase())
    .join('');
  return (
    <span aria-hidden="true" className="flex size-7 shrink-0 items-center justify-center rounded-md bg-accent-100 text-xs font-semibold text-accent-800">
      {letters || '?'}
    </span>
  );
}

function FactorySwitcher({ current, factories, total, canCreate }: { current?: FactoryItem; factories: FactoryItem[]; total: number; canCreate: boolean }) {
  return (
    <Menu
      className="w-full"
      panelClassName="w-full"
      label={
        <span className="flex w-full items-center gap-2.5 rounded-control border border-line bg-surface px-2 py-1.5 shadow-xs hover:border-line-strong">
          <Initials text={current?.name ?? 'Factory'} />
          <span className="min-w-0 flex-1">
            <span className="block truncate text-sm font-semibold text-fg">{current?.name ?? 'Choose a factory'}</span>
            {current ? <span className="block text-xs text-fg-muted">{roleLabels[current.role]}</span> : null}
          </span>
          <svg viewBox="0 0 20 20" aria-hidden="true" className="size-4 shrink-0 text-fg-subtle">
            <path d="M6 8l4-4 4 4M6 12l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          <span className="sr-only">Switch factory</span>
        </span>
      }
    >
      <MenuLabel>Factories</MenuLabel>
      <ul>
        {factories.map((factory) => (
          <li key={factory.slug}>
            <Link href={`/f/${factory.slug}/automations`} className={menuItemClass} aria-current={factory.slug === current?.slug ? 'true' : undefined}>
              <Initials text={factory.name} />
              <span className="min-w-0 flex-1 truncate">{factory.name}</span>
              {factory.slug === current?.slug ? <CheckIcon className="size-4 text-accent-600" /> : null}
            </Link>
          </li>
        ))}
      </ul>
      {total > factories.length ? (
        <Link href="/factories" className={menuItemClass}>
          <span className="min-w-0 flex-1 truncate text-fg-muted">All {total.toLocaleString('en')} factories</span>
        </Link>
      ) : null}
      {canCreate ? (
        <>
          {factories.length > 0 ? <div className="my-1 border-t border-line" /> : null}
          <Link href="/factories/new" className={menuItemClass}>
            <span aria-hidden="true" className="flex size-7 items-center justify-center rounded-md border border-dashed border-line-strong text-fg-muted">
              +
            </span>
            New factory
          </Link>
        </>
      ) : factories.length === 0 ? (
        <p className="px-2.5 py-2 text-[13px] text-fg-muted">No factories yet. Ask an admin for an invitation.</p>
      ) : null}
    </Menu>
  );
}

const icons: Record<NavIcon, ReactNode> = {
  automations: (
    <svg viewBox="0 0 24 24" aria-hidden="true" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M13 2 3 14h9l-1 8 10-12h-9l1-8z" />
    </svg>
  ),
  members: (
    <svg viewBox="0 0 24 24" aria-hidden="true" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2" />
      <circle cx="9" cy="7" r="4" />
      <path d="M22 21v-2a4 4 0 0 0-3-3.87M16 3.13a4 4 0 0 1 0 7.75" />
    </svg>
  ),
  secrets: (
    <svg viewBox="0 0 24 24" aria-hidden="true" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <rect x="3" y="11" width="18" height="11" rx="2" />
      <path d="M7 11V7a5 5 0 0 1 10 0v4" />
    </svg>
  ),
  instance: (
    <svg viewBox="0 0 24 24" aria-hidden="true" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <rect x="2" y="3" width="20" height="7" rx="2" />
      <rect x="2" y="14" width="20" height="7" rx="2" />
      <path d="M6 6.5h.01M6 17.5h.01" />
    </svg>
  ),
  settings: (
    <svg viewBox="0 0 24 24" aria-hidden="true" className="size-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M4 21v-7M4 10V3M12 21v-9M12 8V3M20 21v-5M20 12V3M1 14h6M9 8h6M17 16h6" />
    </svg>
  ),
};


export function AppShell({
  user,
  factories,
  totalFactories,
  current,
  nav,
  canCreateFactories,
  children,
}: {
  user: { email: string; name: string | null; instanceAdmin: boolean };
  /** The first factories by name (lib/domain/factories/service.ts, switcherFactories). */
  factories: FactoryItem[];
  /** How many the user belongs to: past `factories`, the switcher links to the whole list. */
  totalFactories: number;
  current?: FactoryItem;
  nav: NavItem[];
  /** Whether to offer New factory (TRIPLINE_FACTORY_CREATION). */
  canCreateFactories: boolean;
  children: ReactNode;
}) {
  const sidebar = (
    <>
      <FactorySwitcher current={current} factories={factories} total={totalFactories} canCreate={canCreateFactories} />
      <nav aria-label="Factory" className="flex flex-col gap-0.5">
        {nav.map((item) => (
          <NavLink key={item.href} href={item.href} icon={icons[item.icon]}>
            {item.label}
          </NavLink>
        ))}
      </nav>
      <div className="mt-auto flex flex-col gap-2">
        {user.instanceAdmin ? (
          <nav aria-label="Instance" className="flex flex-col gap-0.5 border-t border-line pt-3">
            <NavLink href="/instance" icon={icons.instance}>
              Instance
            </NavLink>
          </nav>
        ) : null}
        <Menu
          className="w-full"
          panelClassName="w-full"
          placement="above"
          label={
            <span className="flex w-full items-center gap-2.5 rounded-control px-1.5 py-1.5 hover:bg-zinc-200/50">
              <Initials text={user.name || user.email} />
              <span className="min-w-0 flex-1">
                <span className="block truncate text-sm font-medium text-fg">{user.name || user.email}</span>
                {user.name ? <span className="block truncate text-xs text-fg-muted">{user.email}</span> : null}
              </span>
              <span className="sr-only">Account menu</span>
            </span>
          }
        >
          <Link href="/settings" className={menuItemClass}>
            User settings
          </Link>
          {user.instanceAdmin ? (
            <Link href="/instance" className={menuItemClass}>
              Instance: accounts and factories
            </Link>
          ) : null}
          <SignOutButton />
        </Menu>
      </div>
    </>
  );
  const home = (
    <Link href="/" className="rounded-control focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600">
      <Logo />
    </Link>
  );
  // Narrow screens (below lg) get a top bar whose Menu button opens the sidebar as a drawer.
  // On wide ones the sidebar column runs the page's full height and only its content is sticky,
  // so a full-page screenshot shows one continuous column rather than a box stranded mid-page.
  return (
    <div className="min-h-screen lg:flex">
      <a href="#main" className="sr-only z-50 rounded-control bg-surface px-3 py-2 focus:not-sr-only focus:fixed focus:top-3 focus:left-3">
        Skip to content
      </a>
      <header className="flex h-14 items-center justify-between gap-3 border-b border-line bg-surface px-4 sm:px-6 lg:hidden">
        {home}
        <MobileNav header={home}>{sidebar}</MobileNav>
      </header>
      <aside className="hidden w-64 shrink-0 border-r border-line bg-subtle/70 lg:block">
        <div className="sticky top-0 flex h-screen flex-col gap-5 px-3 py-4">
          <div className="px-1.5">{home}</div>
          {sidebar}
        </div>
      </aside>
      <main id="main" className="min-w-0 flex-1 px-4 py-6 sm:px-6 lg:px-10 lg:py-8">
        <div className="mx-auto max-w-6xl">{children}</div>
      </main>
    </div>
  );
}

export function RoleBadge({ role }: { role: Role }) {
  return <Badge tone={role === 'admin' ? 'accent' : role === 'editor' ? 'info' : 'neutral'}>{roleLabels[role]}</Badge>;
}
