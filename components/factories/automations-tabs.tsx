import { NavTabs } from '@/components/ui/tabs';

export function AutomationsTabs({ slug, active }: { slug: string; active: 'automations' | 'webhooks' }) {
  return (
    <NavTabs
      aria-label="Automations area"
      className="mb-6"
      items={[
        { href: `/f/${slug}/automations`, label: 'Automations', active: active === 'automations' },
        { href: `/f/${slug}/automations/webhooks`, label: 'Webhooks', active: active === 'webhooks' },
      ]}
    />
  );
}
