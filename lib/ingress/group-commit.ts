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
//
// The queue has a budget (`waiting`): items and bytes waiting at most, and
// how long an item may wait to be taken. A database that stops answering
// (or a load past what it can write) would otherwise hold every arriving
// delivery, body and all, in memory until the process runs out of it. Past
// the budget, `submit` rejects with CommitQueueBusy at once, and an item that
// waited too long is taken off the queue and rejected: nothing of either was
// written, so the caller answers 503 and the sender retries. An item in a
// running batch is never rejected: its statement may still commit.

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
  /** The queue's budget; unbounded without it. */
  waiting?: { maxItems: number; maxWeight: number; maxWaitMs: number };
  /** The clock for maxWaitMs (tests). */
  now?: () => number;
};

/** Why an item was not written: the queue was over its budget, or the item waited past maxWaitMs. Nothing of it was written. */
export class CommitQueueBusy extends Error {
  readonly code = 'COMMIT_QUEUE_BUSY';
  constructor(readonly reason: 'items' | 'weight' | 'wait') {
    super(
      reason === 'wait'
        ? 'the database did not take the write within the wait limit'
        : `too many writes are waiting for the database (${reason === 'items' ? 'count' : 'bytes'} over the limit)`,
    );
  }
}

type Pending<T, R> = { item: T; weight: number; since: number; resolve: (result: R) => void; reject: (error: unknown) => void };

export type GroupCommitter<T, R> = {
  submit: (item: T) => Promise<R>;
  /** Batches written so far and the items in them (for the metrics and tests). */
  stats: () => { batches: number; items: number; largest: number; waiting: number; refused: number };
};

export function groupCommitter<T, R>(options: GroupCommitOptions<T, R>): GroupCommitter<T, R> {
  const queue: Pending<T, R>[] = [];
  let inFlight = 0;
  let queuedWeight = 0;
  const stats = { batches: 0, items: 0, largest: 0, refused: 0 };
  const now = options.now ?? Date.now;
  const waiting = options.waiting;
  let expiry: NodeJS.Timeout | undefined;

  /** Takes the next batch off the queue, in arrival order, until the next item would pass a bound (the first always goes). */
  const take = (): Pending<T, R>[] => {
    let count = 0;
    let weight = 0;
    while (count < Math.min(queue.length, options.maxBatch)) {
      const itemWeight = queue[count]!.weight;
      if (count > 0 && weight + itemWeight > (options.maxWeight ?? Infinity)) break;
      weight += itemWeight;
      count += 1;
    }
    queuedWeight -= weight;
    return queue.splice(0, count);
  };

  /** Rejects the items at the head of the queue that waited past maxWaitMs (the queue is in arrival order); re-arms for the next head. */
  const expire = () => {
    expiry = undefined;
    if (!waiting) return;
    const cutoff = now() - waiting.maxWaitMs;
    let count = 0;
    while (count < queue.length && queue[count]!.since <= cutoff) count += 1;
    for (const pending of queue.splice(0, count)) {
      queuedWeight -= pending.weight;
      stats.refused += 1;
      pending.reject(new CommitQueueBusy('wait'));
    }
    arm();
  };

  const arm = () => {
    if (!waiting || expiry || queue.length === 0) return;
    expiry = setTimeout(expire, Math.max(0, queue[0]!.since + waiting.maxWaitMs - now()) + 1);
    expiry.unref();
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
        const weight = options.weight?.(item) ?? 0;
        if (waiting && queue.length > 0) {
          // Only while items wait: an item that can go out at once never counts against the budget.
          const over = queue.length >= waiting.maxItems ? 'items' : queuedWeight + weight > waiting.maxWeight ? 'weight' : null;
          if (over) {
            stats.refused += 1;
            reject(new CommitQueueBusy(over));
            return;
          }
        }
        queue.push({ item, weight, since: now(), resolve, reject });
        queuedWeight += weight;
        pump();
        arm();
      }),
    stats: () => ({ ...stats, waiting: queue.length }),
  };
}
