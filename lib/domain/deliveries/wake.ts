// In-process wake-ups for the streams of a webhook's log (stream.ts): the
// ingress announces a webhook whose log this process has just written to, so
// a stream served by the same process sends the entry at once instead of at
// its next poll. Entries written by other instances reach a stream through
// its poll (docs/decisions/0072-streams-poll-the-log.md).
//
// No imports: the ingress wing calls announceEntry on its hot path. The
// listeners live on globalThis because Next.js may load this module in more
// than one bundle.

type Listener = () => void;
const key = Symbol.for('tripline.deliveries.wake');

function listeners(): Map<string, Set<Listener>> {
  const holder = globalThis as Record<symbol, Map<string, Set<Listener>> | undefined>;
  holder[key] ??= new Map();
  return holder[key];
}

/** Wakes the streams of a webhook (by its row ID) served by this process. Costs a map lookup when there are none. */
export function announceEntry(webhookId: string): void {
  const set = listeners().get(webhookId);
  if (set) for (const listener of set) listener();
}

/** Calls `listener` on each announcement for the webhook until the returned function is called. */
export function onEntry(webhookId: string, listener: Listener): () => void {
  const all = listeners();
  let set = all.get(webhookId);
  if (!set) all.set(webhookId, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && all.get(webhookId) === set) all.delete(webhookId);
  };
}
