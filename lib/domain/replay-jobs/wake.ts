// Waking this process's replay worker when a job is started here, apart from
// the worker so that the routes that start a job need not load it. The
// server's startup registers the worker's turn; on globalThis, since the
// routes' bundle and the server entry hold modules of their own. Other
// instances, and a job whose lease expired, are found by the worker's poll.

const wakersKey = Symbol.for('tripline.replayJobWakers');
export const replayWakers: Set<() => void> = ((globalThis as Record<symbol, unknown>)[wakersKey] ??= new Set()) as Set<() => void>;

/** Starts a turn of this process's replay worker now, unless one is running. */
export function wakeReplayWorker(): void {
  for (const wake of replayWakers) wake();
}
