-- Run control: a group's runs that have not ended, by status in arrival order, in a partial index
-- that holds only those (docs/decisions/0122). The full index it replaces held every run a group
-- ever had: a scheduler pass's look at a group walked past all of them whenever the planner chose
-- to filter the status rather than seek it (as it did on a table analyzed while nearly empty), so
-- its cost grew with the group's history; and every run that ended added an entry to it. The
-- status comes first, so the claim's look for groups with a pending run reads only pending ones. The
-- statuses are ACTIVE_RUN_STATUSES (lib/domain/run-status/statuses.ts); only migration SQL can
-- express a partial index (prisma/schema.prisma, Run).
DROP INDEX IF EXISTS "Run_automationId_controlKey_status_createdAt_idx";
CREATE INDEX "Run_active_group_idx" ON "Run" ("status", "automationId", "controlKey", "createdAt", "id")
  WHERE "controlKey" IS NOT NULL AND "status" IN ('pending', 'debouncing', 'throttled', 'waiting', 'queued', 'running');
