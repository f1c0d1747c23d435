import { z } from 'zod';

// Lists shown a page at a time by page number (the Instance page, the list of
// one's factories): a page number rather than a cursor where the list is
// thousands of rows at most and a page is a link someone can pass on.

/** Rows a numbered page shows. */
export const PAGE_SIZE = 100;

export type NumberedPage<T> = { rows: T[]; total: number; page: number; pages: number; perPage: number };

/** Page `requested` (from 1; past the last, the last; not a number, the first) of `total` rows, read by `read(skip, take)`. */
export async function numberedPage<T>(requested: number, total: number, perPage: number, read: (skip: number, take: number) => Promise<T[]>): Promise<NumberedPage<T>> {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const page = Math.min(Math.max(1, Math.floor(requested) || 1), pages);
  return { rows: await read((page - 1) * perPage, perPage), total, page, pages, perPage };
}

/** A page number from a search parameter: 1 when absent or unreadable. */
export const pageParam = (value: string | string[] | undefined) => Number(Array.isArray(value) ? value[0] : value) || 1;

/** Most rows one page of an API list holds (the `limit` query parameter's upper bound). */
export const API_PAGE_MAX = 100;

/** The `limit` and `cursor` query parameters of a cursor-paged API list; `limit` 1 to API_PAGE_MAX. */
export function cursorPageSchema(defaultLimit: number) {
  const limitMessage = `limit must be 1 to ${API_PAGE_MAX}`;
  return z.object({
    limit: z.preprocess(
      (v) => (v === '' || v === undefined ? undefined : v),
      z.coerce.number().int().min(1, limitMessage).max(API_PAGE_MAX, limitMessage).default(defaultLimit),
    ),
    cursor: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(400, 'Use the nextCursor of a previous page').optional()),
  });
}
