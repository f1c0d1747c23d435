-- The delivery log's body search (lib/deliveries/service.ts) is a substring
-- match, ILIKE '%text%': a trigram index answers it without reading every
-- body. pg_trgm ships with PostgreSQL (contrib) and with PGlite
-- (lib/db/pglite-extensions.ts loads it into every PGlite instance).
-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateIndex
-- IF NOT EXISTS: on a large log, building the index takes long and blocks
-- writes to the log meanwhile; an operator can build it beforehand with
-- CREATE INDEX CONCURRENTLY under the same name while the previous version
-- runs (docs/operations.md, "Upgrading a large delivery log").
CREATE INDEX IF NOT EXISTS "Delivery_body_trgm_idx" ON "Delivery" USING GIN ("body" gin_trgm_ops);
