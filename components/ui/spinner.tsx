import type { ComponentProps } from 'react';
import { cn } from './cn';

export type SpinnerProps = Omit<ComponentProps<'span'>, 'children'> & {
  /** Accessible text. Without it the spinner is decorative (aria-hidden). */
  label?: string;
  size?: 'sm' | 'md' | 'lg';
};

const sizes = { sm: 'size-3.5', md: 'size-4', lg: 'size-6' } as const;

export function Spinner({ label, size = 'md', className, ...props }: SpinnerProps) {
  return (
    <span
      role={label ? 'status' : undefined}
      aria-hidden={label ? undefined : true}
      className={cn('inline-flex shrink-0 items-center justify-center', className)}
      {...props}
    >
      <svg className={cn('animate-spin', sizes[size])} viewBox="0 0 24 24" fill="none" aria-hidden="true">
        <circle cx="12" cy="12" r="9.5" stroke="currentColor" strokeOpacity="0.25" strokeWidth="3" />
        <path d="M21.5 12A9.5 9.5 0 0 0 12 2.5" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
      </svg>
      {label ? <span className="sr-only">{label}</span> : null}
    </span>
  );
}
