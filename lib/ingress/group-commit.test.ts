import { describe, expect, it } from 'vitest';
import { CommitQueueBusy, groupCommitter } from '@/lib/ingress/group-commit';

// The batching rules of the ingress's group commit, without a database
// (group-commit.int.test.ts writes real deliveries on both databases).

type Item = { key: string; n: number; fail?: boolean };

/** A committer whose writes take `ms` and are recorded; an item with `fail` fails any batch it is in. */
function recording(maxInFlight: number, ms = 5) {
  const batches: Item[][] = [];
  let running = 0;
  let mostRunning = 0;
  const committer = groupCommitter<Item, string>({
    maxInFlight: () => maxInFlight,
    maxBatch: 8,
    write: async (items) => {
      batches.push(items);
      running += 1;
      mostRunning = Math.max(mostRunning, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      if (items.some((item) => item.fail)) throw new Error(`batch of ${items.length} failed`);
      return items.map((item) => `${item.key}:${item.n}`);
    },
  });
  return { committer, batches, mostRunning: () => mostRunning };
}

describe('group commit', () => {
  it('writes a lone item at once, alone', async () => {
    const { committer, batches } = recording(2);
    expect(await committer.submit({ key: 'a', n: 1 })).toBe('a:1');
    expect(batches).toEqual([[{ key: 'a', n: 1 }]]);
  });

  it('groups the items that arrive while the batches in flight run, never more batches at once than allowed', async () => {
    const { committer, batches, mostRunning } = recording(2);
    const items = Array.from({ length: 40 }, (_, n) => ({ key: `k${n % 20}`, n }));
    const results = await Promise.all(items.map((item) => committer.submit(item)));
    // Each caller gets its own item's result.
    expect(results).toEqual(items.map((item) => `${item.key}:${item.n}`));
    expect(mostRunning()).toBe(2);
    // Two went out alone; the rest waited and shared batches of at most 8.
    expect(batches[0]).toHaveLength(1);
    expect(batches[1]).toHaveLength(1);
    expect(batches.length).toBeLessThan(12);
    expect(Math.max(...batches.map((batch) => batch.length))).toBe(8);
    expect(committer.stats()).toMatchObject({ items: 40, batches: batches.length, largest: 8 });
  });

  it('batches items of any key together, in arrival order', async () => {
    const { committer, batches } = recording(1);
    const items = Array.from({ length: 12 }, (_, n) => ({ key: n % 3 === 0 ? 'same' : `k${n}`, n }));
    await Promise.all(items.map((item) => committer.submit(item)));
    // The first alone; then the rest as they came, 8 and 3, 'same' items included.
    expect(batches.map((batch) => batch.map((item) => item.n))).toEqual([[0], [1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11]]);
  });

  it('keeps a batch within its total weight, and lets an item heavier than that go alone', async () => {
    const batches: number[][] = [];
    const committer = groupCommitter<{ size: number }, number>({
      maxInFlight: () => 1,
      maxBatch: 64,
      weight: (item) => item.size,
      maxWeight: 100,
      write: async (items) => {
        batches.push(items.map((item) => item.size));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return items.map((item) => item.size);
      },
    });
    const sizes = [10, 60, 30, 50, 250, 30, 20, 40];
    await Promise.all(sizes.map((size) => committer.submit({ size })));
    // In arrival order: a batch ends before the item that would make it too heavy.
    expect(batches).toEqual([[10], [60, 30], [50], [250], [30, 20, 40]]);
  });

  it('retries the items of a failed batch one by one: only the bad one fails', async () => {
    const { committer, batches } = recording(1);
    const first = committer.submit({ key: 'a', n: 0 });
    const rest = [1, 2, 3, 4].map((n) => committer.submit({ key: `k${n}`, n, fail: n === 3 }));
    await first;
    const settled = await Promise.allSettled(rest);
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toEqual(new Error('batch of 1 failed'));
    // The first alone, then the four together (failed), then each alone again.
    expect(batches.map((batch) => batch.length)).toEqual([1, 4, 1, 1, 1, 1]);
  });

  describe('the waiting budget', () => {
    /** A committer whose writes wait until `release()`: a database that stopped answering. */
    function stuck(waiting: { maxItems: number; maxWeight: number; maxWaitMs: number }, clock = { now: 0 }) {
      const written: number[][] = [];
      const releases: (() => void)[] = [];
      const committer = groupCommitter<{ n: number; size: number }, number>({
        maxInFlight: () => 1,
        maxBatch: 64,
        weight: (item) => item.size,
        write: async (items) => {
          await new Promise<void>((resolve) => releases.push(resolve));
          written.push(items.map((item) => item.n));
          return items.map((item) => item.n);
        },
        waiting,
        now: () => clock.now,
      });
      /** Lets the running write finish (waiting until one runs). */
      const release = async () => {
        while (releases.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        releases.splice(0).forEach((resolve) => resolve());
      };
      return { committer, written, release, clock };
    }
    const reasonOf = async (promise: Promise<unknown>) => ((await promise.catch((error: unknown) => error)) as CommitQueueBusy).reason;

    it('refuses at once what would pass the count of waiting items, and never the first', async () => {
      const { committer, written, release } = stuck({ maxItems: 2, maxWeight: 1e9, maxWaitMs: 60_000 });
      // The first goes out at once (the database holds it); two wait; the fourth is over the count.
      const taken = [0, 1, 2].map((n) => committer.submit({ n, size: 1 }));
      expect(await reasonOf(committer.submit({ n: 3, size: 1 }))).toBe('items');
      expect(committer.stats()).toMatchObject({ waiting: 2, refused: 1 });
      await release();
      await release();
      expect(await Promise.all(taken)).toEqual([0, 1, 2]);
      expect(written).toEqual([[0], [1, 2]]);
    });

    it('refuses what would pass the bytes waiting, and takes a lighter item after it', async () => {
      const { committer, release } = stuck({ maxItems: 100, maxWeight: 100, maxWaitMs: 60_000 });
      const first = committer.submit({ n: 0, size: 1_000 });
      const waiting = committer.submit({ n: 1, size: 80 });
      expect(await reasonOf(committer.submit({ n: 2, size: 30 }))).toBe('weight');
      const light = committer.submit({ n: 3, size: 20 });
      await release();
      await release();
      expect(await first).toBe(0);
      expect(await Promise.all([waiting, light])).toEqual([1, 3]);
    });

    it('rejects the items that waited past the limit, never one its batch already holds', async () => {
      const { committer, written, release, clock } = stuck({ maxItems: 100, maxWeight: 1e9, maxWaitMs: 30 });
      const held = committer.submit({ n: 0, size: 1 });
      const early = committer.submit({ n: 1, size: 1 });
      clock.now = 20;
      const late = committer.submit({ n: 2, size: 1 });
      clock.now = 31;
      // The expiry timer fires about maxWaitMs after the oldest waiting item arrived.
      expect(await reasonOf(early)).toBe('wait');
      expect(committer.stats().waiting).toBe(1);
      clock.now = 51;
      expect(await reasonOf(late)).toBe('wait');
      await release();
      // The item the stuck write held is written and answered as usual.
      expect(await held).toBe(0);
      expect(written).toEqual([[0]]);
      expect(committer.stats()).toMatchObject({ waiting: 0, refused: 2 });
    });
  });
});
