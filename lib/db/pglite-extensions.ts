import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

// The PostgreSQL extensions the migrations create (CREATE EXTENSION), which
// PGlite can only load if every instance that opens a database is given them:
// the delivery log's body search uses a trigram index (pg_trgm) that also
// holds the webhook (btree_gin). Every `new
// PGlite` of the app (the database, the migration engine's scratch database,
// a restore's check) passes these.
export const pgliteExtensions = { btree_gin, pg_trgm } as const;
