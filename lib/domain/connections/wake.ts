// Waking this process's recovery loop when a connection asks for a check
// ("Check now", a new connection), apart from the loop so that the routes
// need not load it. The server's startup registers the loop's turn; on
// globalThis, since the routes' bundle and the server entry hold modules of
// their own. Other instances find due connections at their next poll.

const wakersKey = Symbol.for('tripline.connectionCheckWakers');
export const connectionWakers: Set<() => void> = ((globalThis as Record<symbol, unknown>)[wakersKey] ??= new Set()) as Set<() => void>;

/** Starts a turn of this process's recovery loop now, unless one is running. */
export function wakeConnectionChecks(): void {
  for (const wake of connectionWakers) wake();
}
