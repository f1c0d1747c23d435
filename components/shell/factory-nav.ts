import { can, type Role } from '@/lib/domain/auth/roles';

/** An entry of the sidebar; AppShell draws the icon of each name. */
export type NavItem = { href: string; label: string; icon: NavIcon };
export type NavIcon = 'automations' | 'members' | 'secrets' | 'instance' | 'settings';

/** The sidebar of a factory: only what works, and only what the role may open. */
export function factoryNav(slug: string, role: Role): NavItem[] {
  return [
    { href: `/f/${slug}/automations`, label: 'Automations', icon: 'automations' },
    ...(can(role, 'factory:manage') ? [{ href: `/f/${slug}/secrets`, label: 'Secrets', icon: 'secrets' } satisfies NavItem] : []),
    { href: `/f/${slug}/members`, label: 'Members', icon: 'members' },
    ...(can(role, 'factory:manage') ? [{ href: `/f/${slug}/settings`, label: 'Settings', icon: 'settings' } satisfies NavItem] : []),
  ];
}
