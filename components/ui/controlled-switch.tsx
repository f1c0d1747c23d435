'use client';

import { Controller, type Control, type FieldPathByValue, type FieldValues } from 'react-hook-form';
import { Switch, type SwitchProps } from './switch';

/**
 * A Switch bound to a boolean field of a react-hook-form form: checked is the
 * field's value, a toggle its change, blur its touch. `name` is the field's
 * path; the switch itself submits nothing (the form's values do).
 */
export function ControlledSwitch<T extends FieldValues, Transformed = T>({
  control,
  name,
  ...props
}: { control: Control<T, unknown, Transformed>; name: FieldPathByValue<T, boolean> } & Omit<SwitchProps, 'checked' | 'defaultChecked' | 'onCheckedChange' | 'onBlur' | 'name' | 'value'>) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => <Switch {...props} checked={field.value} onCheckedChange={field.onChange} onBlur={field.onBlur} />}
    />
  );
}
