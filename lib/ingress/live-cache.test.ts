import net from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import type { Database } from '@/lib/platform/db';
import { ENTRY_OVERHEAD_BYTES, LiveWebhookCache, liveCacheLimits } from '@/lib/ingress/live-cache';

// The live cache's bounds: entries and bytes. An embedded-style database (no
// PostgreSQL pool) makes the cache listen at once; nothing here queries it.
const embedded = { adapter: { target: { kind: 'memory' } }, closed: false } as unknown as Database;

async function started(limits?: { maxBytes: number; maxEntryBytes: number; maxEntries: number }) {
  const cache = new LiveWebhookCache<{ filters: string }>(embedded, limits);
  cache.start();
  await new Promise((resolve) => setTimeout(resolve, 0));
  return cache;
}
const value = (size: number) => ({ filters: 'x'.repeat(size) });
// What an entry is charged: its JSON form and the fixed overhead of holding it.
const bytesOf = (size: number) => Buffer.byteLength(JSON.stringify(value(size))) + ENTRY_OVERHEAD_BYTES;

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

  it('holds 20,000 webhooks of the usual size under the bounds the app uses (it held 10,000)', async () => {
    const cache = await started();
    // About the JSON size of a webhook without triggers (370 bytes).
    for (let i = 0; i < 20_000; i++) await cache.read(`w${i}`, async () => value(350));
    expect(cache.size.entries).toBe(20_000);
    expect(cache.get('w0')).toEqual(value(350));
    expect(cache.size.bytes).toBe(20_000 * bytesOf(350));
  });

  it('keeps the smallest entries within the byte budget too: the number of entries follows from it', async () => {
    const cache = await started();
    const fits = Math.floor(liveCacheLimits.maxBytes / bytesOf(0));
    expect(fits).toBeLessThanOrEqual(liveCacheLimits.maxEntries);
    for (let i = 0; i < fits + 1_000; i++) await cache.read(`w${i}`, async () => value(0));
    expect(cache.size).toEqual({ entries: fits, bytes: fits * bytesOf(0) });
    expect(cache.get('w0')).toBeUndefined();
    expect(cache.get(`w${fits + 999}`)).toEqual(value(0));
  });

  it('retries a database that refuses it once every 5 s, not twice per failure', async () => {
    // A "PostgreSQL" that accepts each connection and closes it at once: the connect fails, and the client ends.
    let connections = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `postgresql://tripline@127.0.0.1:${(server.address() as net.AddressInfo).port}/tripline`;
    const database = { adapter: { pool: {}, target: { kind: 'postgres', url } }, closed: false } as unknown as Database;
    // The retry timers are the test's; the sockets' time is real (setImmediate and Date are not faked).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Turns of the event loop for a connection's failure to arrive (no wall-clock wait: a slow machine only counts fewer).
    const settle = async () => {
      for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    };
    try {
      new LiveWebhookCache(database).start();
      for (let second = 0; second < 30; second++) {
        await settle();
        await vi.advanceTimersByTimeAsync(1_000);
      }
      await settle();
      // At 0, 5, 10, 15, 20, 25 and 30 s. (Each failure scheduled two retries, one of them after 1 s: 31 connections.)
      expect(connections).toBeGreaterThanOrEqual(2);
      expect(connections).toBeLessThanOrEqual(7);
    } finally {
      database.closed = true;
      vi.useRealTimers();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
