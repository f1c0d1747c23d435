'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn';

/** A sidebar link that marks itself current when the path is at or under `href`. */
export function NavLink({ href, icon, children }: { href: string; icon?: ReactNode; children: ReactNode }) {
  const pathname = usePathname();
  const active = pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      aria-current={active ? 'page' : undefined}
      className={cn(
        'flex items-center gap-2.5 rounded-control px-2.5 py-1.5 text-sm font-medium transition-colors',
        'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-accent-600',
        active ? 'bg-surface text-fg shadow-xs ring-1 ring-line' : 'text-fg-muted hover:bg-zinc-200/50 hover:text-fg',
      )}
    >
      {icon}
      {children}
    </Link>
  );
}
