// How run control's groups learn that they have work (docs/decisions/0112,
// 0115). A pending run is its group's mark: the statement that inserts it
// (lib/ingress/record.ts, lib/domain/runs/replay.ts) only inserts its group's
// row when the group has none, and never touches an existing one, so a
// delivery never waits for a scheduler pass; passes find their groups through
// the pending runs. What is not a pending run (a run that ends, a cancel) marks
// the group `dirty` and bumps its `changes`: a pass clears `dirty` only while
// `changes` is the count it read, so a mark made while it decided keeps the
// group dirty. Every writer takes groups in key order, so two of them cannot
// deadlock; the scheduler holds a group's row lock only in its last statement.

/**
 * A group's trim lock (an advisory lock on its key): a statement that inserts
 * pending runs takes it shared until its transaction ends; the trim of idle
 * groups (forgetIdleGroups) takes it exclusive without waiting, so it never
 * deletes the group of a pending run that is not committed yet.
 */
export const trimLockKey = (row = '') => `hashtextextended('tripline.run-group-trim:' || ${row}"automationId" || ':' || ${row}"key", 0)`;

/**
 * Inserts the groups `rows` yields that have no row yet (columns
 * "automationId", "key", "keyText"; a group may come more than once), in key
 * order, each under its trim lock taken shared; an existing group's row is
 * neither written nor locked.
 */
export function insertGroupsSql(rows: string): string {
  return `INSERT INTO "RunGroup" ("automationId", "key", "keyText", "dirty", "activeAt")
       SELECT n."automationId", n."key", n."keyText", true, now()
         FROM (SELECT DISTINCT ON (r."automationId", r."key") r."automationId", r."key", r."keyText" FROM ${rows} AS r ORDER BY r."automationId", r."key") n
        WHERE pg_advisory_xact_lock_shared(${trimLockKey('n.')})::text IS NOT NULL
        ORDER BY n."automationId", n."key"
       ON CONFLICT ("automationId", "key") DO NOTHING`;
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
