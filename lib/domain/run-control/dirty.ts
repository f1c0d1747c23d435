// How run control's groups learn that they have work (docs/decisions/0112,
// 0115). A pending run is its group's mark: the statement that records a
// delivery (lib/ingress/record.ts), or a replay (lib/domain/runs/replay.ts),
// inserts the run pending with its group's key and never touches the group's
// row, so a delivery never waits for a scheduler pass; passes find groups
// through the pending runs, and make a group's row when it has none. What is
// not a pending run (a run that ends, a cancel) marks the group `dirty` and
// bumps its `changes`: a pass clears `dirty` only while `changes` is the count
// it read, so a mark made while it decided keeps the group dirty. Every writer
// locks groups in key order, so two of them cannot deadlock; the scheduler
// holds a group's row lock only in its last statement.

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
