import type { NavItem } from '@/components/shell/app-shell';

/** The sidebar of a factory: only what works. */
export function factoryNav(slug: string): NavItem[] {
  return [
    { href: `/f/${slug}/automations`, label: 'Automations', icon: 'automations' },
    { href: `/f/${slug}/members`, label: 'Members', icon: 'members' },
  ];
}
