import type { ComponentProps } from 'react';
import { cn } from './cn';
import { controlStyles } from './input';

export type TextareaProps = ComponentProps<'textarea'> & {
  /** Monospace text, e.g. for JSON payloads. */
  mono?: boolean;
};

export function Textarea({ className, mono, rows = 4, ...props }: TextareaProps) {
  return (
    <textarea
      rows={rows}
      className={cn(controlStyles, 'resize-y px-3 py-2 leading-5', mono && 'font-mono text-[13px]', className)}
      {...props}
    />
  );
}
