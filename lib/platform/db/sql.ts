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
