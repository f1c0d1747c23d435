// Run control's groups are marked dirty by the statement that changes their
// runs (lib/ingress/record.ts and lib/domain/runs/replay.ts insert them,
// lib/domain/runs/worker.ts ends them), so the scheduler never misses a
// change, across crashes too. Each mark also bumps the group's `changes`: a
// pass clears `dirty` only while `changes` is the count it read, so a mark
// made while it decided keeps the group dirty (docs/decisions/0112). Every
// writer locks groups in key order, so two of them cannot deadlock; the
// scheduler holds a group's row lock only in its last statement.

/**
 * Upserts dirty the groups `rows` yields (columns "automationId", "key",
 * "keyText"; a group may come more than once, and a statement may update a
 * row only once, hence DISTINCT ON).
 */
export function upsertGroupsSql(rows: string): string {
  return `INSERT INTO "RunGroup" ("automationId", "key", "keyText", "dirty", "activeAt")
       SELECT DISTINCT ON (n."automationId", n."key") n."automationId", n."key", n."keyText", true, now()
         FROM ${rows} AS n
        ORDER BY n."automationId", n."key"
       ON CONFLICT ("automationId", "key") DO UPDATE SET "dirty" = true, "activeAt" = now(), "changes" = "RunGroup"."changes" + 1`;
}

/** The statement's tail that marks dirty the groups of the runs `ended` returns (its columns "automationId", "controlKey"). */
export function markGroupsDirty(ended: string): string {
  return `UPDATE "RunGroup" SET "dirty" = true, "activeAt" = now(), "changes" = "changes" + 1
      WHERE ("automationId", "key") IN (
        SELECT x."automationId", x."key" FROM "RunGroup" x
         WHERE (x."automationId", x."key") IN (SELECT "automationId", "controlKey" FROM ${ended} WHERE "controlKey" IS NOT NULL)
         ORDER BY x."automationId", x."key"
           FOR UPDATE
      )`;
}
