import { describe, expect, it } from 'vitest';
import { episodes } from '@/lib/platform/log';

// Conditions logged once per episode (the database unreachable, the ingress's waiting budget).

describe('episodes', () => {
  it('starts an episode at the first occurrence and after each quiet gap, not within a run of occurrences', () => {
    const starts = episodes(15_000);
    expect([0, 5_000, 19_000, 34_000, 49_001, 50_000].map((now) => starts(now))).toEqual([true, false, false, false, true, false]);
  });
});
