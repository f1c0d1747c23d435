'use client';

import { useFormStatus } from 'react-dom';
import { Button, type ButtonProps } from './button';

export type SubmitButtonProps = Omit<ButtonProps, 'type'> & {
  /** Force the loading state (it is automatic while the parent <form> action is pending). */
  pending?: boolean;
};

/** Submit button that shows a spinner while its parent <form action={…}> is pending. */
export function SubmitButton({ pending, loading, ...props }: SubmitButtonProps) {
  const status = useFormStatus();
  return <Button {...props} type="submit" loading={Boolean(pending || loading || status.pending)} />;
}
