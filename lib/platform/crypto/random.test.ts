import { describe, expect, it } from 'vitest';
import { randomBase62, timeOrderedId } from '@/lib/platform/crypto/random';

describe('randomBase62', () => {
  it('gives the length asked for, in base62', () => {
    expect(randomBase62(22)).toMatch(/^[0-9A-Za-z]{22}$/);
  });
});

describe('timeOrderedId', () => {
  // Times from 1970 to 2200, in increasing order, some a millisecond apart.
  const times = [0, 1, 35, 36, 1_000_000, 1_764_000_000_000, 1_764_000_000_001, 1_790_000_000_000, 7_258_118_400_000];

  it('is the prefix, nine base36 digits of time and the random part', () => {
    const id = timeOrderedId('dl_', 16, 1_764_000_000_000);
    expect(id).toMatch(/^dl_[0-9a-z]{9}[0-9A-Za-z]{16}$/);
    expect(id.slice(3, 12)).toBe((1_764_000_000_000).toString(36).padStart(9, '0'));
  });

  it('sorts by time, bytewise (PostgreSQL\'s C collation) and linguistically (as en_US.UTF-8 does)', () => {
    const ids = times.map((time) => timeOrderedId('dl_', 16, time));
    const collator = new Intl.Collator('en-US');
    expect([...ids].reverse().sort()).toEqual(ids);
    expect([...ids].reverse().sort(collator.compare)).toEqual(ids);
    // Whatever the random parts: the later millisecond sorts after.
    for (let i = 0; i < 200; i++) {
      const [a, b] = [timeOrderedId('dl_', 16, 1_764_000_000_000 + i), timeOrderedId('dl_', 16, 1_764_000_000_001 + i)];
      expect(a < b && collator.compare(a, b) < 0).toBe(true);
    }
  });

  it('keeps its random part unguessable: no two alike among many made in one millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => timeOrderedId('dl_', 16, 1_764_000_000_000)));
    expect(ids.size).toBe(10_000);
  });
});
