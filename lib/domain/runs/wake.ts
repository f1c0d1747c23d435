// Waking this process's run workers, apart from the worker itself so that the
// ingress can wake them without loading the executors (child_process).

export type WorkerPool = { stop: (deadline?: number) => Promise<void>; wake: () => void };

// This process's worker pools, on globalThis so the ingress bundle reaches
// the pools the server started: a delivery that queues runs wakes them at
// once instead of waiting for the next poll. Other instances poll.
const poolsKey = Symbol.for('tripline.runWorkerPools');
export const workerPools: Set<WorkerPool> = ((globalThis as Record<symbol, unknown>)[poolsKey] ??= new Set()) as Set<WorkerPool>;

/** Tells this process's idle workers that runs were queued. */
export function wakeWorkers(): void {
  for (const pool of workerPools) pool.wake();
}
