import { useId, type ComponentProps, type ReactNode } from 'react';
import { cn } from './cn';
import { CheckIcon } from './icons';

export type CheckboxProps = Omit<ComponentProps<'input'>, 'type' | 'children'> & {
  /** Inline label rendered to the right of the box (the whole row is clickable). */
  label?: ReactNode;
  /** Secondary text under the label, linked with aria-describedby. */
  description?: ReactNode;
};

/**
 * Styled native checkbox. Works with react-hook-form `register()` and plain form posts
 * (sends `value`, default "on", when checked). `className` styles the outer element;
 * `ref`, `id` and the rest go to the <input>.
 */
export function Checkbox({ label, description, className, id, 'aria-describedby': describedBy, ...props }: CheckboxProps) {
  const autoId = useId();
  const inputId = id ?? autoId;
  const descriptionId = description ? `${inputId}-description` : undefined;

  const box = (
    <span className={cn('relative inline-grid size-4 shrink-0 place-items-center', label ? 'mt-0.5' : className)}>
      <input
        {...props}
        id={inputId}
        type="checkbox"
        aria-describedby={cn(describedBy, descriptionId) || undefined}
        className={cn(
          'peer col-start-1 row-start-1 size-4 cursor-pointer appearance-none rounded-[4px] border border-line-strong bg-surface shadow-xs',
          'transition-colors duration-100 hover:border-zinc-400',
          'checked:border-accent-600 checked:bg-accent-600 checked:hover:border-accent-700 checked:hover:bg-accent-700',
          'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600',
          'aria-invalid:border-red-500',
          'disabled:cursor-not-allowed disabled:opacity-50',
        )}
      />
      <CheckIcon
        strokeWidth={3}
        className="pointer-events-none invisible col-start-1 row-start-1 size-3 text-white peer-checked:visible"
      />
    </span>
  );

  if (!label) return box;

  return (
    <div className={cn('flex items-start gap-2.5', className)}>
      {box}
      <div className="min-w-0">
        <label
          htmlFor={inputId}
          className={cn('cursor-pointer font-medium text-fg select-none', props.disabled && 'cursor-not-allowed opacity-60')}
        >
          {label}
        </label>
        {description ? (
          <p id={descriptionId} className="text-fg-muted">
            {description}
          </p>
        ) : null}
      </div>
    </div>
  );
}
