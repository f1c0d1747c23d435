-- The search index's pending list size now follows the database kind, through
-- the session setting gin_pending_list_limit that an index without its own
-- value uses (lib/deliveries/search-index.ts):
--   PostgreSQL: the server's default (4 MB). A housekeeping job merges the
--     list every 2 seconds, before an insert fills it, so no delivery's
--     statement pays for a merge.
--   PGlite: 256 kB, set by every PGlite the app opens (lib/db/pglite-extensions.ts).
--     Its one connection runs the merge either way; small lists keep each one short.
-- Resetting a storage parameter rewrites nothing; it locks the index for an instant.
ALTER INDEX IF EXISTS "Delivery_search_trgm_idx" RESET (gin_pending_list_limit);
