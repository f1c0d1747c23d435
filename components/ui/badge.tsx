import type { ComponentProps } from 'react';
import { cn } from './cn';

export type BadgeTone = 'neutral' | 'success' | 'warning' | 'danger' | 'info' | 'accent';

const tones: Record<BadgeTone, { badge: string; dot: string }> = {
  neutral: { badge: 'bg-zinc-100 text-zinc-700 ring-zinc-500/20', dot: 'bg-zinc-400' },
  success: { badge: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20', dot: 'bg-emerald-500' },
  warning: { badge: 'bg-amber-50 text-amber-800 ring-amber-600/25', dot: 'bg-amber-500' },
  danger: { badge: 'bg-red-50 text-red-700 ring-red-600/20', dot: 'bg-red-500' },
  info: { badge: 'bg-sky-50 text-sky-800 ring-sky-600/20', dot: 'bg-sky-500' },
  accent: { badge: 'bg-accent-50 text-accent-700 ring-accent-600/20', dot: 'bg-accent-500' },
};

export type BadgeProps = ComponentProps<'span'> & {
  tone?: BadgeTone;
  /** Leading status dot. */
  dot?: boolean;
};

/** Small label for roles and statuses (e.g. Accepted = success, Duplicate = warning, Rejected = danger). */
export function Badge({ tone = 'neutral', dot, className, children, ...props }: BadgeProps) {
  const t = tones[tone];
  return (
    <span
      className={cn(
        'inline-flex h-5 shrink-0 items-center gap-1.5 rounded-md px-1.5 text-xs leading-none font-medium whitespace-nowrap ring-1 ring-inset',
        t.badge,
        className,
      )}
      {...props}
    >
      {dot ? <span aria-hidden="true" className={cn('size-1.5 rounded-full', t.dot)} /> : null}
      {children}
    </span>
  );
}
