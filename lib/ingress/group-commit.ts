import 'server-only';

// Group commit for the ingress: concurrent deliveries share one statement
// and one commit. A delivery that arrives while fewer than `maxInFlight`
// batches are running goes out at once, alone (no added latency at low
// load); one that arrives while they all run waits for the first of them to
// commit, and goes with every other delivery that waited meanwhile. So the
// batch size follows the load, and no timer delays anything.
//
// Each caller's promise settles only after its batch's statement returned,
// that is, after the commit: the 202 still means "durable". A batch takes
// the waiting items in arrival order, whatever they are: `write` must give
// each the result it would have had alone (record.ts counts one webhook's
// deliveries in a batch with one rate-limit update). When a batch fails,
// each of its items is retried alone, so one bad delivery cannot fail the
// others.

export type GroupCommitOptions<T, R> = {
  /** Batches running at once (connections they may hold). */
  maxInFlight: () => number;
  /** Items in one batch at most (bounds the statement's size). */
  maxBatch: number;
  /** An item's size (its body), and the total a batch may reach; an item bigger than that alone goes alone. */
  weight?: (item: T) => number;
  maxWeight?: number;
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

  /** Takes the next batch off the queue, in arrival order, until the next item would pass a bound (the first always goes). */
  const take = (): Pending<T, R>[] => {
    let count = 0;
    let weight = 0;
    while (count < Math.min(queue.length, options.maxBatch)) {
      const itemWeight = options.weight?.(queue[count]!.item) ?? 0;
      if (count > 0 && weight + itemWeight > (options.maxWeight ?? Infinity)) break;
      weight += itemWeight;
      count += 1;
    }
    return queue.splice(0, count);
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
