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
