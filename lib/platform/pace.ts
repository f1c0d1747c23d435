// Background jobs that share the machine (and on PGlite, the one database
// connection) with the ingress pace themselves: after each batch of work they
// rest `ratio` times as long as the batch took, so a job uses at most
// 1 / (1 + ratio) of a core and requests queued meanwhile get their turn.
// A yield of the event loop alone is not enough: a request needs several
// turns (parse, route, handler) before it asks for the connection.

/** Rests `ratio` times as long as has passed since `startedAt` (a performance.now() reading). */
export async function restAfter(startedAt: number, ratio: number): Promise<void> {
  if (ratio <= 0) return;
  const ms = (performance.now() - startedAt) * ratio;
  await new Promise((resolve) => setTimeout(resolve, ms));
}
