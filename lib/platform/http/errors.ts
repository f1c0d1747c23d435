import { ZodError } from 'zod';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseDiskFull, isDatabaseUnavailable, noteDatabaseUnavailable } from '@/lib/platform/db/unavailable';
import { errorFields, log } from '@/lib/platform/log';

// One error type for the whole domain. Services throw AppError; every adapter
// (server actions, /api/v1, the CLI) maps it the same way. Messages are
// written for the person who sees them and never contain secrets.

export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export type FieldErrors = Record<string, string>;

export type ErrorBody = { error: { code: ErrorCode; message: string; fields?: FieldErrors } };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fields: FieldErrors | undefined;
  /** Sent as Retry-After: for `rate_limited`, seconds until the budget refills; for a `conflict` that a retry resolves, 1. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, fields?: FieldErrors, retryAfterSeconds?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.fields = fields;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (what = 'Not found') => new AppError('not_found', what);
export const forbidden = (message = 'You do not have permission to do this') => new AppError('forbidden', message);

/** Zod issues as one message per field, keyed by dotted path. */
export function fieldErrorsFromZod(error: ZodError): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join('.') : '_';
    fields[key] ??= issue.message;
  }
  return fields;
}

function prismaErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return /^P\d{4}$/.test(error.code) ? error.code : undefined;
  }
  return undefined;
}

/**
 * Maps any thrown value to an AppError that is safe to show. An unreachable
 * database becomes `unavailable` (503), noted for the once-per-outage log line.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    noteDatabaseUnavailable(error);
    if (isDatabaseDiskFull(error)) return new AppError('unavailable', `Tripline's database has no disk space left right now, so nothing was saved. Try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`);
    return new AppError('unavailable', `Tripline cannot reach its database right now. Try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`);
  }
  if (error instanceof ZodError) {
    return new AppError('validation_failed', 'Some fields are invalid', fieldErrorsFromZod(error));
  }
  switch (prismaErrorCode(error)) {
    case 'P2025':
      return new AppError('not_found', 'Not found');
    case 'P2002':
      return new AppError('conflict', 'This already exists');
    case 'P2034':
      // A deadlock or serialization failure: two requests changed the same thing at once and
      // PostgreSQL rolled this one back. Nothing of it was saved; sent again, it goes through.
      return new AppError('conflict', 'Another change to the same thing was being saved at the same moment, so this one was not saved. Send it again.', undefined, 1);
  }
  return new AppError('internal', 'Something went wrong on our side. The error was logged.');
}

export function errorBody(error: AppError): ErrorBody {
  return {
    error: { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) },
  };
}

/** A JSON error response; unexpected errors are logged (without request data) and shown generically. */
export function errorResponse(error: unknown, headers?: HeadersInit): Response {
  const appError = toAppError(error);
  if (appError.code === 'internal') log('api').error(errorFields(error), 'unexpected error');
  const merged = new Headers(headers);
  if (appError.code === 'unavailable') merged.set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
  if (appError.retryAfterSeconds !== undefined) merged.set('Retry-After', String(appError.retryAfterSeconds));
  return Response.json(errorBody(appError), { status: appError.status, headers: merged });
}
