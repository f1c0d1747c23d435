import type { ComponentProps } from 'react';
import { cn } from './cn';

/** Shared look of text-like controls (Input, Textarea, Select). */
export const controlStyles =
  'block w-full min-w-0 rounded-control border border-line-strong bg-surface text-sm text-fg shadow-xs ' +
  'placeholder:text-fg-subtle transition-[border-color,box-shadow] duration-150 ' +
  'hover:border-zinc-400/70 ' +
  'focus-visible:border-accent-500 focus-visible:outline-none focus-visible:ring-3 focus-visible:ring-accent-500/20 ' +
  'aria-invalid:border-red-500 aria-invalid:hover:border-red-500 aria-invalid:focus-visible:border-red-500 aria-invalid:focus-visible:ring-red-500/20 ' +
  'disabled:cursor-not-allowed disabled:bg-subtle disabled:text-fg-subtle disabled:shadow-none disabled:hover:border-line-strong ' +
  '[&[readonly]]:bg-subtle/60';

export type InputProps = ComponentProps<'input'> & {
  /** Monospace text, e.g. for tokens, ids or URLs. */
  mono?: boolean;
};

export function Input({ className, mono, type = 'text', ...props }: InputProps) {
  return (
    <input
      type={type}
      className={cn(
        controlStyles,
        'h-9 px-3',
        'file:mr-3 file:h-full file:border-0 file:border-r file:border-line file:bg-transparent file:pr-3 file:text-sm file:font-medium file:text-fg',
        mono && 'font-mono text-[13px]',
        className,
      )}
      {...props}
    />
  );
}
