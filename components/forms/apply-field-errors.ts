import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import type { ErrorBody } from '@/lib/platform/http/errors';

/**
 * Puts a server action's field errors next to their fields; returns the
 * message for the top of the form when no field took it.
 */
export function applyFieldErrors<T extends FieldValues>(
  error: ErrorBody['error'],
  setError: UseFormSetError<T>,
  fieldNames: readonly string[],
): string | null {
  let placed = false;
  for (const [field, message] of Object.entries(error.fields ?? {})) {
    if (fieldNames.includes(field)) {
      setError(field as Path<T>, { type: 'server', message }, { shouldFocus: !placed });
      placed = true;
    }
  }
  return placed ? null : error.message;
}
