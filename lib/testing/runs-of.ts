import type { Db } from '@/lib/db';

/**
 * Log entries with their runs: a run names its delivery by a plain column
 * (no Prisma relation into the partitioned log, see the schema's Delivery).
 */
export async function withRuns<T extends { id: string }>(db: Db, rows: T[]): Promise<(T & { runs: { id: string; automationId: string; status: string }[] })[]> {
  const runs = await db.run.findMany({ where: { deliveryId: { in: rows.map((row) => row.id) } }, select: { id: true, automationId: true, status: true, deliveryId: true } });
  return rows.map((row) => ({ ...row, runs: runs.filter((run) => run.deliveryId === row.id).map(({ deliveryId: _, ...run }) => run) }));
}
