import Link from 'next/link';
import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';

export type NavTabItem = {
  href: string;
  label: ReactNode;
  /** Marks the current page (aria-current="page"). */
  active?: boolean;
  /** Optional counter shown after the label. */
  count?: number;
};

export type NavTabsProps = Omit<ComponentProps<'nav'>, 'children'> & {
  items: NavTabItem[];
  /** Accessible name of the navigation landmark. Default "Sections". */
  'aria-label'?: string;
};

/** Link-based tabs for sub-pages (each tab is its own route). */
export function NavTabs({ items, className, 'aria-label': ariaLabel = 'Sections', ...props }: NavTabsProps) {
  return (
    <nav aria-label={ariaLabel} className={cn('border-b border-line', className)} {...props}>
      <ul className="-mb-px flex gap-5 overflow-x-auto">
        {items.map((item) => (
          <li key={item.href} className="flex">
            <Link
              href={item.href}
              aria-current={item.active ? 'page' : undefined}
              className={cn(
                'inline-flex items-center gap-2 border-b-2 px-0.5 pt-1 pb-2.5 text-sm font-medium whitespace-nowrap transition-colors',
                'rounded-t-sm focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-accent-600',
                item.active
                  ? 'border-accent-600 text-fg'
                  : 'border-transparent text-fg-muted hover:border-line-strong hover:text-fg',
              )}
            >
              {item.label}
              {item.count !== undefined ? (
                <span
                  className={cn(
                    'rounded-full px-1.5 py-px text-xs tabular-nums',
                    item.active ? 'bg-accent-50 text-accent-700' : 'bg-subtle text-fg-muted',
                  )}
                >
                  {item.count}
                </span>
              ) : null}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
