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

// PostgreSQL's checkpointer writes dirty pages out and lets old WAL segments
// go (every checkpoint_timeout, or once max_wal_size of WAL is written).
// PGlite runs no checkpointer: since 0.4.4 it never checkpoints by itself
// (0.4.3 did, from inside the commit that crossed max_wal_size, and then
// waited for that commit forever: the embedded database stalled for good
// after about 37,000 deliveries; docs/benchmarks.md). Without a checkpoint
// the WAL would grow by the whole inflow until the server stops, and a crash
// would replay all of it at the next start. So the server checkpoints the
// embedded database itself, whenever the WAL written since the last
// checkpoint passes EMBEDDED_CHECKPOINT_BYTES.

/** WAL written since the last checkpoint past which the embedded database checkpoints. */
export const EMBEDDED_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** The bytes of WAL written since the embedded database's last checkpoint. */
export async function walSinceCheckpoint(pglite: EmbeddedDatabase): Promise<number> {
  const { rows } = await pglite.query<{ bytes: number }>(`SELECT (pg_current_wal_lsn() - (pg_control_checkpoint()).redo_lsn)::float8 AS "bytes"`);
  return Number(rows[0]?.bytes ?? 0);
}

/** A CHECKPOINT when more than `minBytes` of WAL were written since the last one; what it found and, when it ran, how long it took (ms). */
export async function checkpointEmbedded(pglite: EmbeddedDatabase, minBytes = EMBEDDED_CHECKPOINT_BYTES): Promise<{ walBytes: number; ms: number | null }> {
  const walBytes = await walSinceCheckpoint(pglite);
  if (walBytes < minBytes) return { walBytes, ms: null };
  const started = performance.now();
  await pglite.exec('CHECKPOINT');
  return { walBytes, ms: performance.now() - started };
}
