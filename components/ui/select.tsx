import type { ComponentProps } from 'react';
import { cn } from './cn';
import { controlStyles } from './input';

const chevron =
  "url(\"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 20 20' fill='none' stroke='%2371717a' stroke-width='1.6' stroke-linecap='round' stroke-linejoin='round'%3E%3Cpath d='m6 8 4 4 4-4'/%3E%3C/svg%3E\")";

export type SelectProps = ComponentProps<'select'> & {
  /** Adds a disabled, empty first option shown until a value is picked. */
  placeholder?: string;
};

/** Native <select> with the control look. Pass <option>s as children. */
export function Select({
  className,
  style,
  placeholder,
  children,
  multiple,
  defaultValue,
  ...props
}: SelectProps) {
  const showPlaceholder = placeholder !== undefined && !multiple;
  return (
    <select
      {...props}
      multiple={multiple}
      // Without a value the browser would select the first enabled option and hide the placeholder.
      defaultValue={showPlaceholder && props.value === undefined && defaultValue === undefined ? '' : defaultValue}
      className={cn(
        controlStyles,
        multiple ? 'px-2 py-1.5' : 'h-9 appearance-none bg-size-[1.125rem] bg-position-[right_0.5rem_center] bg-no-repeat pr-9 pl-3',
        className,
      )}
      style={multiple ? style : { backgroundImage: chevron, ...style }}
    >
      {showPlaceholder ? (
        <option value="" disabled>
          {placeholder}
        </option>
      ) : null}
      {children}
    </select>
  );
}
