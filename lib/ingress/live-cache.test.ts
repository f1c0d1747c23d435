import { describe, expect, it } from 'vitest';
import type { Database } from '@/lib/platform/db';
import { LiveWebhookCache } from '@/lib/ingress/live-cache';

// The live cache's bounds: entries and bytes. An embedded-style database (no
// PostgreSQL pool) makes the cache listen at once; nothing here queries it.
const embedded = { adapter: { target: { kind: 'memory' } }, closed: false } as unknown as Database;

async function started(limits: { maxBytes: number; maxEntryBytes: number; maxEntries: number }) {
  const cache = new LiveWebhookCache<{ filters: string }>(embedded, limits);
  cache.start();
  await new Promise((resolve) => setTimeout(resolve, 0));
  return cache;
}
const value = (size: number) => ({ filters: 'x'.repeat(size) });
const bytesOf = (size: number) => Buffer.byteLength(JSON.stringify(value(size)));

describe('LiveWebhookCache', () => {
  it('keeps its entries within a byte budget, evicting the oldest first', async () => {
    const cache = await started({ maxBytes: 3 * bytesOf(1000), maxEntryBytes: 10_000, maxEntries: 100 });
    for (const uid of ['a', 'b', 'c', 'd']) await cache.read(uid, async () => value(1000));
    expect(cache.size).toEqual({ entries: 3, bytes: 3 * bytesOf(1000) });
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toEqual(value(1000));
    // A larger entry pushes out as many of the oldest as it needs.
    await cache.read('big', async () => value(2000));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.size.bytes).toBeLessThanOrEqual(3 * bytesOf(1000));
  });

  it('does not keep an entry over the per-entry limit, and counts bytes back on invalidation', async () => {
    const cache = await started({ maxBytes: 1_000_000, maxEntryBytes: 5_000, maxEntries: 100 });
    let loads = 0;
    const load = async () => {
      loads += 1;
      return value(6_000);
    };
    await cache.read('huge', load);
    await cache.read('huge', load);
    expect(loads).toBe(2);
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
    await cache.read('small', async () => value(100));
    cache.invalidate('small');
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('keeps at most its number of entries', async () => {
    const cache = await started({ maxBytes: 1_000_000, maxEntryBytes: 5_000, maxEntries: 2 });
    for (const uid of ['a', 'b', 'c']) await cache.read(uid, async () => value(10));
    expect(cache.size.entries).toBe(2);
    expect(cache.get('a')).toBeUndefined();
  });
});
