import Link from 'next/link';
import type { ComponentProps } from 'react';
import { cn } from './cn';
import { Spinner } from './spinner';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost' | 'link';
export type ButtonSize = 'sm' | 'md';

const base =
  'inline-flex shrink-0 items-center justify-center gap-2 whitespace-nowrap rounded-control font-medium select-none ' +
  'transition-[color,background-color,border-color,box-shadow] duration-150 ' +
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600 ' +
  'disabled:pointer-events-none aria-disabled:pointer-events-none ' +
  '[&_svg]:pointer-events-none [&_svg]:shrink-0';

const variants: Record<ButtonVariant, string> = {
  primary:
    'border border-accent-700/60 bg-accent-600 text-white shadow-[inset_0_1px_0_rgb(255_255_255/0.12),0_1px_2px_rgb(0_0_0/0.05)] ' +
    'hover:bg-accent-700 active:bg-accent-800',
  secondary:
    'border border-line-strong bg-surface text-fg shadow-xs hover:bg-subtle active:bg-zinc-200/70',
  danger:
    'border border-red-700/60 bg-red-600 text-white shadow-[inset_0_1px_0_rgb(255_255_255/0.12),0_1px_2px_rgb(0_0_0/0.05)] ' +
    'hover:bg-red-700 active:bg-red-800 focus-visible:outline-red-600',
  ghost: 'border border-transparent text-fg-muted hover:bg-subtle hover:text-fg active:bg-zinc-200/70',
  link: 'text-accent-700 underline-offset-4 hover:text-accent-800 hover:underline',
};

const sizes: Record<ButtonSize, string> = {
  sm: 'h-8 px-2.5 text-[13px] [&_svg:not([class*=size-])]:size-3.5',
  md: 'h-9 px-3.5 text-sm [&_svg:not([class*=size-])]:size-4',
};

export type ButtonStyleOptions = {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Stretch to the container width. */
  block?: boolean;
  /** Busy look: slightly dimmed instead of the faded disabled look. */
  loading?: boolean;
  className?: string;
};

/** Class string of a button; use it to style other elements (e.g. a <summary>) as buttons. */
export function buttonStyles({ variant = 'primary', size = 'md', block, loading, className }: ButtonStyleOptions = {}) {
  return cn(
    base,
    variants[variant],
    loading ? 'opacity-85' : 'disabled:opacity-50 aria-disabled:opacity-50',
    // The link variant keeps the text height and drops the horizontal padding.
    variant === 'link' ? (size === 'sm' ? 'text-[13px]' : 'text-sm') : sizes[size],
    block && 'w-full',
    className,
  );
}

export type ButtonProps = ComponentProps<'button'> &
  Omit<ButtonStyleOptions, 'className' | 'loading'> & {
    /** Shows a spinner, disables the button and sets aria-busy. */
    loading?: boolean;
  };

/** Note: like the native element, the default `type` is "submit" inside a form. Pass type="button" for non-submit actions. */
export function Button({
  variant,
  size,
  block,
  loading = false,
  disabled,
  className,
  children,
  ...props
}: ButtonProps) {
  return (
    <button
      {...props}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={buttonStyles({ variant, size, block, loading, className })}
    >
      {loading ? <Spinner size={size === 'sm' ? 'sm' : 'md'} /> : null}
      {children}
    </button>
  );
}

export type ButtonLinkProps = ComponentProps<typeof Link> & Omit<ButtonStyleOptions, 'className' | 'loading'>;

/** A next/link styled as a button (navigation, not an action). */
export function ButtonLink({ variant, size, block, className, ...props }: ButtonLinkProps) {
  return <Link {...props} className={buttonStyles({ variant, size, block, className })} />;
}
