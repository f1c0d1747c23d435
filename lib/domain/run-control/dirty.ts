// Run control's groups are marked dirty by the statement that changes their
// runs (lib/ingress/record.ts inserts, lib/domain/runs/worker.ts ends them), so
// the scheduler never misses a change, across crashes too.

/**
 * The statement's tail that marks dirty the run control groups of the runs
 * `ended` returns (its columns "automationId", "controlKey"), locking them in
 * key order like the ingress (lib/ingress/record.ts), so the two cannot deadlock.
 */
export function markGroupsDirty(ended: string): string {
  return `UPDATE "RunGroup" SET "dirty" = true, "activeAt" = now()
      WHERE ("automationId", "key") IN (
        SELECT x."automationId", x."key" FROM "RunGroup" x
         WHERE (x."automationId", x."key") IN (SELECT "automationId", "controlKey" FROM ${ended} WHERE "controlKey" IS NOT NULL)
         ORDER BY x."automationId", x."key"
           FOR UPDATE
      )`;
}
