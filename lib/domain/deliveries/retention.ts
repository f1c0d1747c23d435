import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';
import { releaseLease, renewLeaseCte, takeLease } from '@/lib/platform/db/lease';
import { restAfter } from '@/lib/platform/pace';

// Retention (docs/decisions/0035-retention.md): at least the most recent 50 deliveries and 7
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
// the ingress feels of a prune is its WAL (every commit of the ingress flushes
// the prune's WAL written before it) and its reads. A whole expired day of 5
// webhooks at the limits (440,000 entries) goes in 74-111 s (docs/benchmarks/history.md,
// "A log laid out as a live one"), against the hour between runs.
const REST_RATIO = 3;

// How it runs at the limits (12 million entries in a factory; docs/benchmarks/history.md,
// "The delivery log at the limits"): oldest first across every webhook, in the
// order the log was written, so each batch deletes entries that share heap
// pages (a live log interleaves its webhooks: a page holds several webhooks'
// entries, and pruning webhook by webhook dirtied, logged and wrote each old
// page once per webhook). Batches of BATCH entries follow the receivedAt index
// from where the previous batch stopped, one short statement each, with a
// rest after each (REST_RATIO), so the ingress is never held up for long and
// an entry kept for its runs is read once, not once per batch. No ranking of
// the whole table: a webhook's 50th newest entry is one index lookup, made
// for the webhooks a batch touches. One instance prunes at a time (a lease,
// lib/platform/db/lease.ts): another instance's pass that finds it held does nothing.

type Step = { deleted: number; seen: number; lastAt: Date | null; lastId: string | null };

export async function pruneDeliveries(db: DbOrTx = prisma, now: Date = new Date(), options: { batch?: number; restRatio?: number } = {}): Promise<number> {
  const cutoff = new Date(now.getTime() - RETENTION_DAYS * 24 * 60 * 60 * 1000);
  const batch = options.batch ?? BATCH;
  const restRatio = options.restRatio ?? REST_RATIO;
  const lease = await takeLease(db, 'retention');
  if (!lease) return 0;
  let total = 0;
  try {
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const params: unknown[] = [cutoff, batch, RETENTION_MIN_ENTRIES - 1, lease.key, lease.token];
      if (after) params.push(after.at, after.id);
      const started = performance.now();
      // lease: renewed, or this pass has lost it (and selects nothing);
      // doomed: the next entries past the window, oldest first; floors: the
      // 50th newest entry of each webhook among them (a webhook with fewer
      // has none, and keeps everything); an entry goes when it is older than
      // its webhook's floor and no run reads it.
      const [step]: Step[] = await db.$queryRawUnsafe<Step[]>(
        `WITH ${renewLeaseCte(4)}, doomed AS (
           SELECT "id", "webhookId", "receivedAt" FROM "Delivery"
            WHERE "receivedAt" < $1 AND EXISTS (SELECT 1 FROM lease)
              ${after ? 'AND "receivedAt" >= $6 AND ("receivedAt", "id") > ($6, $7)' : ''}
            ORDER BY "receivedAt", "id" LIMIT $2
         ), floors AS (
           SELECT w."webhookId", f."at", f."id"
             FROM (SELECT DISTINCT "webhookId" FROM doomed) w
            CROSS JOIN LATERAL (
              SELECT "receivedAt" AS "at", "id" FROM "Delivery" WHERE "webhookId" = w."webhookId"
               ORDER BY "receivedAt" DESC, "id" DESC OFFSET $3 LIMIT 1
            ) f
         ), gone AS (
           DELETE FROM "Delivery" WHERE "id" IN (
             SELECT d."id" FROM doomed d JOIN floors f ON f."webhookId" = d."webhookId" AND (d."receivedAt", d."id") < (f."at", f."id")
              WHERE NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."deliveryId" = d."id")
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
  } finally {
    await releaseLease(db, lease);
  }
  return total;
}
