import type { Extension, PGliteInterface } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { SESSION_TIME_ZONE_SQL } from '@/lib/platform/db/session';

// The PostgreSQL extensions the migrations create (CREATE EXTENSION), which
// PGlite can only load if every instance that opens a database is given them:
// the delivery log's body search uses a trigram index (pg_trgm) that also
// holds the webhook (btree_gin). Every `new PGlite` of the app in this
// thread (the migration engine's scratch database, a restore's check) passes
// these; the database itself opens on a thread of its own
// (lib/platform/db/pglite-worker.mjs), which loads the same two extensions and runs
// PGLITE_SESSION_SQL.
//
// `tripline-session` is not an extension but its hook: it applies the app's
// session settings to each new PGlite once it is ready, before its first
// query: the session's time zone (SESSION_TIME_ZONE_SQL, adapter.ts; PGlite
// takes the machine's otherwise), and the log's search index's pending list
// of 256 kB, not PostgreSQL's default 4 MB: on PGlite the insert that fills
// the list merges it, on the one connection every request waits for
// (lib/domain/deliveries/search-index.ts).
export const PGLITE_SESSION_SQL = `${SESSION_TIME_ZONE_SQL}; SET gin_pending_list_limit = '256kB'`;

const sessionSettings = {
  name: 'tripline-session',
  setup: async (pg: PGliteInterface, emscriptenOpts: unknown) => ({
    emscriptenOpts,
    init: async () => {
      await pg.exec(PGLITE_SESSION_SQL);
    },
  }),
} satisfies Extension;

export const pgliteExtensions = { btree_gin, pg_trgm, sessionSettings } as const;
