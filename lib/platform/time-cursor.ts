import { AppError } from '@/lib/platform/http/errors';
import { unsafeText } from '@/lib/platform/http/unsafe-text';
import { parseIsoInstant } from '@/lib/platform/instant';

/**
 * An opaque keyset cursor for a list read newest first by a time, then id (the delivery log, the
 * runs): the next page starts after this row, so a row added meanwhile neither repeats nor skips one.
 */
export type TimeCursor = { at: Date; id: string };

export function encodeTimeCursor(row: TimeCursor): string {
  return Buffer.from(`${row.at.toISOString()}|${row.id}`, 'utf8').toString('base64url');
}

/** The row a cursor of encodeTimeCursor names; a 422 naming `cursor` for anything else. */
export function decodeTimeCursor(cursor: string): TimeCursor {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  // A cursor is the caller's text too: an ISO time and an ID PostgreSQL can hold, or refused.
  const date = parseIsoInstant(at ?? '');
  if (!id || !date || unsafeText(id) || id.length > 100) throw new AppError('validation_failed', 'The cursor is not valid', { cursor: 'Use the nextCursor of a previous page' });
  return { at: date, id };
}

/** A page of `limit` rows from `rows` read with `limit + 1`, and the cursor of the next page (null on the last). */
export function keysetPage<T>(rows: T[], limit: number, position: (row: T) => TimeCursor): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last ? encodeTimeCursor(position(last)) : null };
}
