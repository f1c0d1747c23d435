import type { ComponentProps } from 'react';
import { cn } from './cn';

/** Keyboard key, e.g. <Kbd>⌘</Kbd><Kbd>K</Kbd>. */
export function Kbd({ className, ...props }: ComponentProps<'kbd'>) {
  return (
    <kbd
      className={cn(
        'inline-flex h-5 min-w-5 items-center justify-center rounded border border-line-strong bg-surface px-1 font-sans text-[11px] font-medium text-fg-muted shadow-[0_1px_0_var(--color-line-strong)]',
        className,
      )}
      {...props}
    />
  );
}
