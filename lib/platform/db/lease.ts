import 'server-only';
import { randomBytes } from 'node:crypto';
import type { DbOrTx } from '@/lib/platform/db';

// A lease: one app instance at a time does a long housekeeping pass (the
// delivery log's retention), however many instances share the database.
// Instances started together by a deploy run their hourly jobs at about the
// same moment; two passes over the same expired entries would read and lock
// every row twice and double the WAL the ingress's commits wait behind.
//
// An advisory lock cannot do this: a pass is many short statements on a
// pool, and a transaction-scoped lock is free between them. The lease is a
// row in InstanceSetting whose value is the holder's random token; the
// holder renews it (updatedAt) with every statement of its pass and deletes
// it at the end. A holder that dies leaves a lease that expires after
// LEASE_TTL_SECONDS; a holder that stalls that long loses it, and its next
// renewal fails, so it stops rather than work beside the new holder.

export const LEASE_TTL_SECONDS = 120;

export type Lease = { key: string; token: string };

/** Takes the lease `name` if no one holds it or its holder's lease has expired; null when another instance holds it. */
export async function takeLease(db: DbOrTx, name: string): Promise<Lease | null> {
  const lease = { key: `lease.${name}`, token: randomBytes(16).toString('base64url') };
  const taken = await db.$queryRawUnsafe<unknown[]>(
    `INSERT INTO "InstanceSetting" ("key", "value", "updatedAt") VALUES ($1, $2, now())
     ON CONFLICT ("key") DO UPDATE SET "value" = EXCLUDED."value", "updatedAt" = now()
      WHERE "InstanceSetting"."updatedAt" < now() - make_interval(secs => $3)
     RETURNING 1`,
    lease.key,
    lease.token,
    LEASE_TTL_SECONDS,
  );
  return taken.length ? lease : null;
}

/**
 * A CTE (name `lease`) that renews the lease whose key and token are the
 * parameters $keyParam and $keyParam+1: it has a row when the lease is
 * still this holder's. A statement of the pass selects nothing without it.
 */
export function renewLeaseCte(keyParam: number): string {
  return `lease AS (
    UPDATE "InstanceSetting" SET "updatedAt" = now() WHERE "key" = $${keyParam} AND "value" = $${keyParam + 1} RETURNING 1
  )`;
}

/** Ends the lease, if it is still this holder's. */
export async function releaseLease(db: DbOrTx, lease: Lease): Promise<void> {
  await db.$executeRawUnsafe(`DELETE FROM "InstanceSetting" WHERE "key" = $1 AND "value" = $2`, lease.key, lease.token);
}
