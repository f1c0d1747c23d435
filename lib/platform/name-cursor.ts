import { AppError } from '@/lib/platform/http/errors';
import { findUnsafeValue } from '@/lib/platform/http/unsafe-input';

/**
 * An opaque keyset cursor for a list read by name, then id (so that equal names page
 * deterministically): the next page starts after this row. For the API's lists that pass a
 * cursor rather than a page number, so that a row added or removed meanwhile neither repeats nor
 * skips one (the automations of a factory, the caller's factories).
 */
export function encodeNameCursor(row: NameCursor): string {
  return Buffer.from(JSON.stringify([row.name, row.id]), 'utf8').toString('base64url');
}

export type NameCursor = { name: string; id: string };

/** The row a cursor of encodeNameCursor names; a 422 naming `cursor` for anything else. */
export function decodeNameCursor(cursor: string): NameCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  // The decoded text is the caller's too: it must be text PostgreSQL can hold.
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string' || findUnsafeValue(value)) {
    throw new AppError('validation_failed', 'The cursor is not valid', { cursor: 'Use the nextCursor of a previous page' });
  }
  return { name: value[0], id: value[1] };
}

