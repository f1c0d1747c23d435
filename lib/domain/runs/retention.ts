import 'server-only';
import { prisma, type DbOrTx } from '@/lib/platform/db';

// Run retention (docs/decisions/0050-run-retention.md): a finished run
// (succeeded or failed, or ended by run control: superseded, debounced,
// skipped, cancelled) is deleted TRIPLINE_RUN_RETENTION_DAYS after it
// finished (default 90, as long as CI systems keep logs; 0 keeps runs
// forever); without a limit the table would only grow. Runs that have not
// ended (queued, running, or held by run control) are never pruned.

const BATCH = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export async function pruneRuns(retentionDays: number, db: DbOrTx = prisma, now: Date = new Date()): Promise<number> {
  if (retentionDays <= 0) return 0;
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRawUnsafe(
      `DELETE FROM "Run" WHERE "id" IN (
         SELECT "id" FROM "Run" WHERE "status" IN ('succeeded', 'failed', 'superseded', 'debounced', 'skipped', 'cancelled') AND "finishedAt" < $1 LIMIT $2
       )`,
      cutoff,
      BATCH,
    );
    total += deleted;
    if (deleted < BATCH) return total;
  }
}
