import 'server-only';
import type { Tx } from '@/lib/platform/db';

// Transaction-scoped advisory locks: held until the transaction ends, shared
// by every app instance on the same database. Keys are fixed per purpose.
export const lockKeys = {
  firstRun: 7_145_001,
  // Changes to instance admins and disabled accounts: the instance always keeps an enabled admin.
  instanceAdmins: 7_145_002,
  // Health rollups (lib/domain/health/rollups.ts): one instance recomputes at a time.
  healthRollups: 7_145_013,
  // Backtest's copy job (lib/domain/deliveries/body-json.ts): one instance copies at a time.
  bodyCopies: 7_145_020,
  // The search index's pending-list merge (lib/domain/deliveries/search-index.ts): one instance at a time.
  searchMerge: 7_145_030,
  // The event types of entries stored before they were typed (lib/domain/deliveries/event-type-backfill.ts).
  eventTypeBackfill: 7_145_040,
} as const;

export async function advisoryXactLock(tx: Tx, key: number): Promise<void> {
  await tx.$queryRawUnsafe('SELECT pg_advisory_xact_lock($1::bigint)::text', key);
}

/** Takes the lock if no other transaction holds it; false when one does (the caller skips its turn). */
export async function tryAdvisoryXactLock(tx: Tx, key: number): Promise<boolean> {
  const [lock] = await tx.$queryRawUnsafe<{ ok: boolean }[]>('SELECT pg_try_advisory_xact_lock($1::bigint) AS ok', key);
  return lock?.ok === true;
}

/**
 * Locks one factory row for the rest of the transaction (serialises its
 * configuration changes). FOR NO KEY UPDATE, not FOR UPDATE: the foreign key
 * check of a row that references the factory takes FOR KEY SHARE on it, which
 * FOR UPDATE blocks. A transaction that had updated a webhook once and
 * updated it again (PostgreSQL checks the key again for a row the transaction
 * itself wrote) waited for a lockFactory holder that waited for that webhook:
 * two PATCHes of one webhook deadlocked (seen on PostgreSQL in the API's
 * fuzz). The two locks still exclude each other, as configuration changes must.
 */
export async function lockFactory(tx: Tx, factoryId: string): Promise<void> {
  await tx.$queryRawUnsafe('SELECT id FROM "Factory" WHERE id = $1 FOR NO KEY UPDATE', factoryId);
}
