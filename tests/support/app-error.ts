import { expect } from 'vitest';
import { AppError } from '@/lib/platform/http/errors';

/** Awaits a promise that must reject with an AppError, and returns that error for its code and message. */
export async function appError(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
