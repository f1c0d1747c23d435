import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

// The time part of timeOrderedId: milliseconds since 1970 in base36, nine
// digits (enough until the year 5138), zero-padded so every ID has the same
// width. Base36 in lower case, not base62, because 0-9 and a-z sort alike in
// PostgreSQL's C collation and in the linguistic ones (en_US.UTF-8 and
// others), where upper and lower case interleave.
const TIME_DIGITS = 9;

/**
 * `prefix`, the current millisecond and `randomLength` random base62
 * characters: an ID that is as unguessable as its random part and that
 * sorts by creation time. A B-tree on such IDs takes each new one at its
 * end, in a page that is already in memory, instead of on a random page of
 * the whole index, which on a log of millions of rows may have to be read
 * from disk and written whole to the WAL (measured: 8 % fewer B-tree
 * full-page images, docs/benchmarks/history.md, "Steady load"). IDs made in the same
 * millisecond sort among themselves at random.
 */
export function timeOrderedId(prefix: string, randomLength: number, now: number = Date.now()): string {
  return `${prefix}${Math.floor(now).toString(36).padStart(TIME_DIGITS, '0')}${randomBase62(randomLength)}`;
}
