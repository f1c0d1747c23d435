-- The delivery log's body search (lib/deliveries/service.ts) is a substring
-- match, ILIKE '%text%': a trigram index answers it without reading every
-- body. pg_trgm ships with PostgreSQL (contrib) and with PGlite
-- (lib/db/pglite-extensions.ts loads it into every PGlite instance).
-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateIndex
CREATE INDEX "Delivery_body_trgm_idx" ON "Delivery" USING GIN ("body" gin_trgm_ops);
