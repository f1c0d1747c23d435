import 'server-only';
import { prisma, type DbOrTx } from '@/lib/db';

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
const BATCH = 5_000;

export async function pruneDeliveries(db: DbOrTx = prisma, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - RETENTION_DAYS * 24 * 60 * 60 * 1000);
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRawUnsafe(
      `DELETE FROM "Delivery" WHERE "id" IN (
         SELECT "id" FROM (
           SELECT "id", "receivedAt",
                  row_number() OVER (PARTITION BY "webhookId" ORDER BY "receivedAt" DESC, "id" DESC) AS rank
           FROM "Delivery"
         ) ranked
         WHERE ranked.rank > $1 AND ranked."receivedAt" < $2
           AND NOT EXISTS (SELECT 1 FROM "Run" r WHERE r."deliveryId" = ranked."id")
         LIMIT $3
       )`,
      RETENTION_MIN_ENTRIES,
      cutoff,
      BATCH,
    );
    total += deleted;
    if (deleted < BATCH) return total;
  }
}
