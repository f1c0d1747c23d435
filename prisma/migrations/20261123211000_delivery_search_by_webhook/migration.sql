-- The log's body search looks up one webhook's entries: the trigram index now
-- holds the webhook too, so a word in many bodies of other webhooks costs
-- nothing (before, every candidate of every webhook was fetched and checked,
-- then discarded). A GIN index on the text column "webhookId" needs
-- btree_gin's operator classes; it ships with PostgreSQL (contrib) and with
-- PGlite (lib/db/pglite-extensions.ts).
CREATE EXTENSION IF NOT EXISTS "btree_gin";

-- IF NOT EXISTS: on a large log, building the index takes long and blocks
-- writes to the log meanwhile; an operator can build it beforehand with
-- CREATE INDEX CONCURRENTLY under the same name while the previous version
-- runs (docs/operations.md, "Upgrading a large delivery log").
-- Partial: only entries with a body (accepted deliveries) can match a body
-- search. Prisma's schema cannot express it, hence raw SQL only.
-- A 256 kB pending list (the default is 4 MB): new entries go to the pending
-- list and the insert that fills it merges it into the index. With 4 MB that
-- insert took hundreds of milliseconds, the ingress's p99 at 200 deliveries/s
-- on a full log (docs/benchmarks.md); 256 kB merges sixteen times as often,
-- each merge a sixteenth as long.
CREATE INDEX IF NOT EXISTS "Delivery_search_trgm_idx" ON "Delivery" USING GIN ("webhookId", "body" gin_trgm_ops) WITH (gin_pending_list_limit = 256) WHERE "body" IS NOT NULL;

-- The previous search index, on the body alone.
DROP INDEX IF EXISTS "Delivery_body_trgm_idx";
