'use client';

import { useEffect, useRef, type ReactNode } from 'react';
import { cn } from '@/components/ui/cn';

/**
 * A disclosure menu on <details>/<summary>: keyboard and screen-reader
 * friendly without a library. Closes on outside click, Escape and navigation.
 */
export function Menu({
  label,
  children,
  className,
  panelClassName,
  align = 'start',
  placement = 'below',
}: {
  label: ReactNode;
  children: ReactNode;
  className?: string;
  panelClassName?: string;
  align?: 'start' | 'end';
  placement?: 'below' | 'above';
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const close = (event: Event) => {
      const details = ref.current;
      if (!details?.open) return;
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        details.open = false;
        details.querySelector('summary')?.focus();
        return;
      }
      if (!details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, []);
  return (
    <details ref={ref} className={cn('group relative', className)}>
      <summary
        className={cn(
          'flex cursor-pointer list-none items-center gap-2 rounded-control [&::-webkit-details-marker]:hidden',
          'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-accent-600',
        )}
      >
        {label}
      </summary>
      <div
        className={cn(
          'absolute z-30 min-w-56 rounded-card border border-line bg-surface p-1 shadow-overlay',
          placement === 'below' ? 'top-full mt-1' : 'bottom-full mb-1',
          align === 'start' ? 'left-0' : 'right-0',
          panelClassName,
        )}
        onClick={(event) => {
          if ((event.target as HTMLElement).closest('a')) ref.current?.removeAttribute('open');
        }}
      >
        {children}
      </div>
    </details>
  );
}

export function MenuLabel({ children }: { children: ReactNode }) {
  return <div className="px-2.5 pt-2 pb-1 text-xs font-medium text-fg-subtle">{children}</div>;
}

export const menuItemClass =
  'flex w-full items-center gap-2 rounded-md px-2.5 py-1.5 text-left text-sm text-fg hover:bg-subtle focus-visible:bg-subtle focus-visible:outline-none';
