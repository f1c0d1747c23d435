import 'server-only';

// Group commit for the ingress: concurrent deliveries share one statement
// and one commit. A delivery that arrives while fewer than `maxInFlight`
// batches are running goes out at once, alone (no added latency at low
// load); one that arrives while they all run waits for the first of them to
// commit, and goes with every other delivery that waited meanwhile. So the
// batch size follows the load, and no timer delays anything.
//
// Each caller's promise settles only after its batch's statement returned,
// that is, after the commit: the 202 still means "durable". Items with the
// same key (the webhook: it keys the identity and the rate-limit counter a
// statement updates) never share a batch, so a batch never touches a row
// twice; they go in the next one. When a batch fails, each of its items is
// retried alone, so one bad delivery cannot fail the others.

export type GroupCommitOptions<T, R> = {
  /** Batches running at once (connections they may hold). */
  maxInFlight: () => number;
  /** Items in one batch at most (bounds the statement's size). */
  maxBatch: number;
  /** An item's size (its body), and the total a batch may reach; an item bigger than that alone goes alone. */
  weight?: (item: T) => number;
  maxWeight?: number;
  /** Items with the same key go in different batches. */
  key: (item: T) => string;
  /** Writes the items in one transaction; returns one result per item, in order. */
  write: (items: T[]) => Promise<R[]>;
};

type Pending<T, R> = { item: T; resolve: (result: R) => void; reject: (error: unknown) => void };

export type GroupCommitter<T, R> = {
  submit: (item: T) => Promise<R>;
  /** Batches written so far and the items in them (for the metrics and tests). */
  stats: () => { batches: number; items: number; largest: number };
};

export function groupCommitter<T, R>(options: GroupCommitOptions<T, R>): GroupCommitter<T, R> {
  const queue: Pending<T, R>[] = [];
  let inFlight = 0;
  const stats = { batches: 0, items: 0, largest: 0 };

  /** Takes the next batch off the queue: in arrival order, skipping an item whose key is already in it. */
  const take = (): Pending<T, R>[] => {
    const batch: Pending<T, R>[] = [];
    const keys = new Set<string>();
    let weight = 0;
    for (let i = 0; i < queue.length && batch.length < options.maxBatch; ) {
      const item = queue[i]!.item;
      const key = options.key(item);
      const itemWeight = options.weight?.(item) ?? 0;
      if (keys.has(key) || (batch.length > 0 && weight + itemWeight > (options.maxWeight ?? Infinity))) {
        // Its key waits too, so that items of one key keep their order.
        keys.add(key);
        i += 1;
        continue;
      }
      keys.add(key);
      weight += itemWeight;
      batch.push(queue.splice(i, 1)[0]!);
    }
    return batch;
  };

  const pump = () => {
    while (inFlight < Math.max(1, options.maxInFlight()) && queue.length > 0) {
      const batch = take();
      inFlight += 1;
      stats.batches += 1;
      stats.items += batch.length;
      stats.largest = Math.max(stats.largest, batch.length);
      void run(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  const run = async (batch: Pending<T, R>[]): Promise<void> => {
    try {
      const results = await options.write(batch.map((pending) => pending.item));
      batch.forEach((pending, i) => pending.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // Nothing of the failed batch was committed: each item again, alone.
      await Promise.all(
        batch.map(async (pending) => {
          try {
            const [result] = await options.write([pending.item]);
            pending.resolve(result!);
          } catch (single) {
            pending.reject(single);
          }
        }),
      );
    }
  };

  return {
    submit: (item) =>
      new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      }),
    stats: () => ({ ...stats }),
  };
}
