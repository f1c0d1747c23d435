-- Run control: every writer that marks a group dirty bumps its change counter; a scheduler pass
-- clears "dirty" only if the counter is still the one it read, so it need not hold the group's
-- row lock while it decides (docs/decisions/0112).
ALTER TABLE "RunGroup" ADD COLUMN "changes" BIGINT NOT NULL DEFAULT 0;
