'use client';

import { useEffect, useId, useRef, useState, type ComponentProps, type ReactNode, type Ref } from 'react';
import { cn } from './cn';

export type SwitchProps = Omit<ComponentProps<'button'>, 'type' | 'role' | 'value' | 'defaultValue' | 'onChange'> & {
  /** Controlled state. */
  checked?: boolean;
  /** Initial state when uncontrolled. */
  defaultChecked?: boolean;
  onCheckedChange?: (checked: boolean) => void;
  /** With a name, a hidden input submits `value` (default "on") while checked, like a checkbox. */
  name?: string;
  value?: string;
  size?: 'sm' | 'md';
  /** Inline label to the right of the switch. */
  label?: ReactNode;
  /** Secondary text under the label, linked with aria-describedby. */
  description?: ReactNode;
};

const trackSizes = { sm: 'h-4 w-7', md: 'h-5 w-9' } as const;
const thumbSizes = { sm: 'size-3 data-[state=checked]:translate-x-3', md: 'size-4 data-[state=checked]:translate-x-4' } as const;

function setRef<T>(ref: Ref<T> | undefined, value: T | null) {
  if (typeof ref === 'function') ref(value);
  else if (ref) ref.current = value;
}

/** Accessible on/off toggle (button role="switch"). `className` styles the outer element when a label is given. */
export function Switch({
  checked: checkedProp,
  defaultChecked = false,
  onCheckedChange,
  name,
  value = 'on',
  form,
  size = 'md',
  label,
  description,
  disabled,
  className,
  id,
  ref,
  onClick,
  'aria-describedby': describedBy,
  ...props
}: SwitchProps) {
  const autoId = useId();
  const buttonId = id ?? autoId;
  const descriptionId = description ? `${buttonId}-description` : undefined;
  const [internal, setInternal] = useState(defaultChecked);
  const controlled = checkedProp !== undefined;
  const checked = controlled ? checkedProp : internal;
  const buttonRef = useRef<HTMLButtonElement | null>(null);

  // Follow native checkbox behaviour on <form>.reset().
  useEffect(() => {
    const owner = buttonRef.current?.form;
    if (!owner || controlled) return;
    const onReset = () => setInternal(defaultChecked);
    owner.addEventListener('reset', onReset);
    return () => owner.removeEventListener('reset', onReset);
  }, [controlled, defaultChecked]);

  const state = checked ? 'checked' : 'unchecked';

  const control = (
    <>
      <button
        {...props}
        ref={(el) => {
          buttonRef.current = el;
          setRef(ref, el);
        }}
        id={buttonId}
        type="button"
        role="switch"
        aria-checked={checked}
        aria-describedby={cn(describedBy, descriptionId) || undefined}
        data-state={state}
        disabled={disabled}
        form={form}
        onClick={(event) => {
          onClick?.(event);
          if (event.defaultPrevented) return;
          if (!controlled) setInternal(!checked);
          onCheckedChange?.(!checked);
        }}
        className={cn(
          'group relative inline-flex shrink-0 cursor-pointer items-center rounded-full border-2 border-transparent',
          'bg-zinc-300 transition-colors duration-150 hover:bg-zinc-400/80',
          'data-[state=checked]:bg-accent-600 data-[state=checked]:hover:bg-accent-700',
          'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600',
          'aria-invalid:ring-2 aria-invalid:ring-red-500/40',
          'disabled:cursor-not-allowed disabled:opacity-50',
          trackSizes[size],
          label ? size === 'sm' && 'mt-0.5' : className,
        )}
      >
        <span
          aria-hidden="true"
          data-state={state}
          className={cn(
            'pointer-events-none block translate-x-0 rounded-full bg-white shadow-sm ring-0 transition-transform duration-150',
            thumbSizes[size],
          )}
        />
      </button>
      {name && checked && !disabled ? <input type="hidden" name={name} value={value} form={form} /> : null}
    </>
  );

  if (!label) return control;

  return (
    <div className={cn('flex items-start gap-3', className)}>
      {control}
      <div className="min-w-0">
        <label
          htmlFor={buttonId}
          className={cn('cursor-pointer font-medium text-fg select-none', disabled && 'cursor-not-allowed opacity-60')}
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
