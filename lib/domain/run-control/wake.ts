// Waking this process's run control scheduler, apart from the scheduler itself
// so that the ingress can wake it without loading it (as lib/domain/runs/wake.ts
// does for the run workers).

export type Scheduler = { stop: () => Promise<void>; wake: () => void };

// On globalThis: the ingress's bundle must reach the scheduler the server started.
const schedulersKey = Symbol.for('tripline.runControlSchedulers');
export const schedulers: Set<Scheduler> = ((globalThis as Record<symbol, unknown>)[schedulersKey] ??= new Set()) as Set<Scheduler>;

/** Tells this process's scheduler that pending runs were inserted: it decides them at once instead of at its next poll. */
export function wakeScheduler(): void {
  for (const scheduler of schedulers) scheduler.wake();
}
