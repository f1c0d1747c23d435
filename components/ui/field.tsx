import { cloneElement, isValidElement, useId, type ComponentProps, type ReactElement, type ReactNode } from 'react';
import { cn } from './cn';
import { AlertCircleIcon } from './icons';

/** Props that Field wires onto its control. */
export type FieldControlProps = {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
  'aria-required'?: true;
};

type ControlElement = ReactElement<{ id?: string; 'aria-describedby'?: string; 'aria-invalid'?: unknown; 'aria-required'?: unknown }>;

export type FieldProps = Omit<ComponentProps<'div'>, 'children'> & {
  label: ReactNode;
  /** Id of the control. Defaults to the child's `id`, else a generated one. */
  id?: string;
  /** Help text under the control. */
  hint?: ReactNode;
  /** Error message; when truthy the control gets aria-invalid and the message is announced (role="alert"). */
  error?: ReactNode;
  /** Marks the label with an asterisk and sets aria-required on the control. */
  required?: boolean;
  /** Shows a quiet "Optional" next to the label. */
  optional?: boolean;
  /** Something aligned to the right of the label, e.g. a "Forgot password?" link. */
  labelAside?: ReactNode;
  /**
   * One control element (Input, Textarea, Select, Switch, …) that receives id/aria props,
   * or a render function for composite controls: `{(control) => <MyThing {...control} />}`.
   */
  children: ControlElement | ((control: FieldControlProps) => ReactNode);
};

/**
 * Label + control + hint + error. Works with react-hook-form:
 * `<Field label="Email" error={errors.email?.message}><Input {...register('email')} /></Field>`.
 */
export function Field({
  label,
  id,
  hint,
  error,
  required,
  optional,
  labelAside,
  children,
  className,
  ...props
}: FieldProps) {
  const autoId = useId();
  const child = typeof children === 'function' ? null : isValidElement(children) ? children : null;
  const controlId = id ?? child?.props.id ?? autoId;
  const hintId = hint ? `${controlId}-hint` : undefined;
  const hasError = error !== undefined && error !== null && error !== false && error !== '';
  const errorId = hasError ? `${controlId}-error` : undefined;

  const control: FieldControlProps = {
    id: controlId,
    'aria-describedby': cn(child?.props['aria-describedby'], errorId, hintId) || undefined,
    ...(hasError ? { 'aria-invalid': true as const } : {}),
    ...(required ? { 'aria-required': true as const } : {}),
  };

  return (
    <div className={cn('flex flex-col gap-1.5', className)} {...props}>
      <div className="flex items-baseline justify-between gap-3">
        <label htmlFor={controlId} className="text-sm font-medium text-fg">
          {label}
          {required ? (
            <span aria-hidden="true" className="ml-0.5 text-red-600">
              *
            </span>
          ) : null}
          {optional ? <span className="ml-1.5 text-[13px] font-normal text-fg-subtle">Optional</span> : null}
        </label>
        {labelAside ? <div className="text-[13px]">{labelAside}</div> : null}
      </div>
      {typeof children === 'function' ? children(control) : child ? cloneElement(child, control) : children}
      {hasError ? (
        <p id={errorId} role="alert" className="flex items-start gap-1.5 text-[13px] leading-5 text-red-700">
          <AlertCircleIcon className="mt-0.5 size-3.5 shrink-0" />
          <span>{error}</span>
        </p>
      ) : null}
      {hint ? (
        <p id={hintId} className="text-[13px] leading-5 text-fg-muted">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
