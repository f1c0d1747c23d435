-- Run control: a pending run is its group's mark. The ingress no longer writes RunGroup at all;
-- a scheduler pass makes a missing group's row from its pending runs, which carry the key as the
-- pages show it (docs/decisions/0115). Runs recorded before this have groups already.
ALTER TABLE "Run" ADD COLUMN "controlKeyText" TEXT;
