import 'server-only';
import { getDatabase } from '@/lib/platform/db';

// Plain SQL on the process's database, without Prisma's query layer, for the
// ingress hot path where every request pays for each query (see
// docs/benchmarks.md). Everything else uses Prisma. Both drivers return
// JavaScript values for the same PostgreSQL types.
export async function sql<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
  const { adapter } = getDatabase();
  if (adapter.pool) return (await adapter.pool.query(text, params)).rows as Row[];
  if (adapter.pglite) return (await adapter.pglite.query<Row>(text, params)).rows;
  throw new Error('No SQL connection for this database');
}

/** The statement that bounds each later statement of the transaction it runs in to `ms` (PostgreSQL cancels it past that). */
export const localStatementTimeout = (ms: number) => `SET LOCAL statement_timeout = ${Math.max(1, Math.round(ms))}`;

/**
 * `sql` bounded on the database's side: on PostgreSQL the statement is cancelled after `ms`
 * (a lock held by a migration, a table scan), so a probe or a scrape that gave up waiting does not
 * leave its query holding one of the pool's connections. The embedded database has one connection
 * and no other session to wait for: the query runs as it is.
 */
export async function sqlWithin<Row>(ms: number, text: string, params: unknown[] = []): Promise<Row[]> {
  const { adapter } = getDatabase();
  if (!adapter.pool) return sql<Row>(text, params);
  const client = await adapter.pool.connect();
  let failed: unknown;
  try {
    await client.query(`BEGIN; ${localStatementTimeout(ms)}`);
    const { rows } = await client.query(text, params);
    await client.query('COMMIT');
    return rows as Row[];
  } catch (error) {
    failed = error;
    throw error;
  } finally {
    // A connection whose statement failed is ended, not pooled: it may be mid-transaction or gone.
    client.release(failed instanceof Error ? failed : undefined);
  }
}
