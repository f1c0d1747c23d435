import 'server-only';
import type { EmbeddedDatabase } from '@/lib/platform/db/pglite-thread';

// PostgreSQL's autovacuum reclaims the space of deleted and updated rows and
// keeps the planner's statistics fresh. PGlite is PostgreSQL in single-user
// mode: it has no autovacuum. Without a VACUUM, a page's deleted rows are
// never recorded as free space, so every insert extends the table: the
// embedded log grew by its whole inflow although retention keeps 7 days
// (measured: five rounds of 20,000 inserts and deletes took a table of 20,000
// rows from 26 to 123 MB). Without an ANALYZE, every query is planned on
// default estimates.
//
// So on the embedded database the hourly retention job ends with a VACUUM of
// the whole database, and once a day with a VACUUM (ANALYZE). A VACUUM visits
// only pages that changed since the last one (the visibility map), plus the
// indexes of tables with deleted rows, which it reads whole; ANALYZE reads a
// sample of every table, and costs twice the VACUUM. The ingress waits for
// both: PGlite has one connection (docs/benchmarks/history.md, "Embedded VACUUM":
// 0.3 s an hour and 0.6 s more a day at 100,000 entries).

/** VACUUM, with ANALYZE when asked, of the embedded database; returns how long it took, in ms. */
export async function vacuumEmbedded(pglite: EmbeddedDatabase, options: { analyze: boolean }): Promise<number> {
  const started = performance.now();
  await pglite.exec(options.analyze ? 'VACUUM (ANALYZE)' : 'VACUUM');
  return performance.now() - started;
}
