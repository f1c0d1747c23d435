import 'server-only';
import { prisma, type DbOrTx } from '@/lib/db';
import { restAfter } from '@/lib/server/pace';

// Retention (README.md, Decisions: Retention): at least the most recent 50 deliveries and 7
// days of history per webhook are kept; older entries are pruned by a
// periodic job. An entry goes only when it is both older than the window and
// not among its webhook's 50 newest. Its accepted identity goes with it
// (cascade), so dedup covers exactly the retained window.
//
// An entry that started a run stays as long as any of its runs is kept (run
// retention, 90 days by default, decides): runs do not copy the payload,
// they read the delivery's body, so a queued run can still execute and a
// finished one still shows what it was given. Keeping more than the minimum
// is what "at least" allows.

export const RETENTION_DAYS = 7;
export const RETENTION_MIN_ENTRIES = 50;
const BATCH = 500;
// After each batch the job rests three times as long as the batch took. What
// the ingress feels of a prune is mostly its WAL: every commit of the ingress
// flushes the prune's WAL written before it. Small batches with long rests
// keep that WAL at about 20 MB/s instead of 40; the ingress's p99 at a
// steady 200/s over a whole expired day's prune was 52 ms. That day of 5
// webhooks at the limits (440,000 entries) still goes in 70-99 s
// (docs/benchmarks.md, "Steady load"), against the hour between runs.
const REST_RATIO = 3;

// How it runs at the limits (12 million entries in a factory; docs/benchmarks.md,
// "The delivery log at the limits"): webhook by webhook, oldest first, in
// batches of BATCH entries (with a rest after each, REST_RATIO) that each follow the (webhookId, receivedAt, id)
// index from where the previous batch stopped, one short transaction each,
// so the ingress is never held up for long and an entry kept for its runs is
// read once, not once per batch. No ranking of the whole table: a webhook's
// 50th newest entry is one index lookup.

type Position = { at: Date; id: string };
type Step = { deleted: number; seen: number; lastAt: Date | null; lastId: string | null };

export async function pruneDeliveries(db: DbOrTx = prisma, now: Date = new Date(), options: { batch?: number; restRatio?: number } = {}): Promise<number> {
  const cutoff = new Date(now.getTime() - RETENTION_DAYS * 24 * 60 * 60 * 1000);
  const batch = options.batch ?? BATCH;
  const restRatio = options.restRatio ?? REST_RATIO;
  const webhooks = await db.$queryRawUnsafe<Array<{ id: string }>>(`SELECT "id" FROM "Webhook" ORDER BY "id"`);
  let total = 0;
  for (const { id: webhookId } of webhooks) {
    // Entries from the 50th newest on are kept whatever their age.
    const [floor] = await db.$queryRawUnsafe<Position[]>(
      `SELECT "receivedAt" AS "at", "id" FROM "Delivery" WHERE "webhookId" = $1
        ORDER BY "receivedAt" DESC, "id" DESC OFFSET $2 LIMIT 1`,
      webhookId,
      RETENTION_MIN_ENTRIES - 1,
    );
    if (!floor) continue;
    let after: Position | null = null;
    for (;;) {
      const params: unknown[] = [webhookId, floor.at, floor.id, cutoff, batch];
      if (after) params.push(after.at, after.id);
      const started = performance.now();
      const [step]: Step[] = await db.$queryRawUnsafe<Step[]>(
        `WITH doomed AS (
           SELECT "id", "receivedAt" FROM "Delivery"
            WHERE "webhookId" = $1 AND ("receivedAt", "id") < ($2, $3) AND "receivedAt" < $4
              ${after ? 'AND ("receivedAt", "id") > ($6, $7)' : ''}
            ORDER BY "receivedAt", "id" LIMIT $5
         ), gone AS (
           DELETE FROM "Delivery" WHERE "id" IN (
             SELECT d."id" FROM doomed d WHERE NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."deliveryId" = d."id")
           ) RETURNING 1
         ), last AS (
           SELECT "receivedAt", "id" FROM doomed ORDER BY "receivedAt" DESC, "id" DESC LIMIT 1
         )
         SELECT (SELECT count(*) FROM gone)::int AS "deleted", (SELECT count(*) FROM doomed)::int AS "seen",
                (SELECT "receivedAt" FROM last) AS "lastAt", (SELECT "id" FROM last) AS "lastId"`,
        ...params,
      );
      total += step?.deleted ?? 0;
      if (!step || step.seen < batch || !step.lastAt || !step.lastId) break;
      after = { at: step.lastAt, id: step.lastId };
      await restAfter(started, restRatio);
    }
  }
  return total;
}
