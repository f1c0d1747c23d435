import 'server-only';
import { prisma, type Db, type Tx } from '@/lib/db';
import { renewLeaseCte, type Lease } from '@/lib/db/lease';
import { advisoryXactLock, lockKeys } from '@/lib/db/locks';
import { restAfter } from '@/lib/server/pace';

// The delivery log (Delivery) and Backtest's jsonb copies (DeliveryJson) are
// partitioned by day (migration delivery_log_day_partitions), so that
// retention drops an expired day instead of deleting its rows: a deleted row
// dirties its page, and after each checkpoint a dirtied page is logged whole,
// so deleting a day at the limits (440,000 entries, 5 webhooks) wrote about
// 2 GB of WAL and forced checkpoints that stalled the ingress
// (docs/benchmarks.md). Detaching and dropping a partition writes almost none.
//
// The partition key, "bucket", is a date:
// - a day, for an entry in that day's partition ("Delivery_p20261126"): an
//   entry without runs written while its day's partition existed;
// - 9999-12-31, for the kept partition ("Delivery_kept"): what may outlive its
//   day. An entry that starts runs is written there (a run reads its
//   delivery's body, and runs are kept longer than the log), and a replay
//   moves its entry there before starting runs (moveToKeptPartition): the
//   ingress and replay are the only writers of runs, so no run points into a
//   day. So are entries written
//   while no partition for their day existed, those written outside the
//   ingress, and every entry from before partitioning. Retention prunes the
//   kept partition row by row (retention.ts), as it did the whole log.
//
// Partitions are made a few days ahead, at start and hourly
// (ensureDayPartitions), so a missing one is rare and costs nothing but
// efficiency: the ingress's bucket falls back to the kept partition when its
// day's does not exist (todayBucketSql), never to an error.
//
// A day's partition goes when all of it is past the window: its newest entry
// is at most a day younger than its oldest, so entries stay between 7 and 8
// days ("at least 7 days", README.md, Decisions: Retention). Before, the
// entries among their webhook's 50 newest move to the kept partition (a quiet
// webhook's), and the expired entries' identities are deleted (the
// deduplication window is the log's); the jsonb copies' partition goes, then
// the log's.
//
// No foreign key points at an entry (schema.prisma, Delivery): PostgreSQL
// checks one into a partitioned table by locking every partition, so each
// delivery's identity check held about 84 locks with 10 days of partitions,
// and a detach that had to check the referring tables deadlocked with the
// ingress (docs/benchmarks.md). What a cascade did, the code here does: a
// moved entry takes its copy along; a dropped day's identities are deleted
// first; the kept partition's prune deletes an entry's identity and copy with
// it (retention.ts).

export const KEPT_BUCKET = '9999-12-31';
const KEPT = `DATE '${KEPT_BUCKET}'`;
export const KEPT_BUCKET_SQL = KEPT;

const DELIVERY = 'Delivery';
const COPIES = 'DeliveryJson';
const partitionName = (table: string, day: string) => `${table}_p${day.replaceAll('-', '')}`;
/** The partition name for a SQL date expression. */
const partitionNameSql = (table: string, date: string) => `quote_ident('${table}_p' || to_char(${date}, 'YYYYMMDD'))`;

/**
 * The bucket of an entry written now that starts no runs: today's, when its
 * partition exists, else the kept partition's. CURRENT_DATE and receivedAt's
 * now() are in the same session time zone, so the bucket is receivedAt's day.
 */
export const todayBucketSql = `(CASE WHEN to_regclass(${partitionNameSql(DELIVERY, 'CURRENT_DATE')}) IS NOT NULL THEN CURRENT_DATE ELSE ${KEPT} END)`;

/** Days ahead (today included) that have their partitions. */
const DAYS_AHEAD = 3;
// Attaching a partition takes a lock on the partitioned table that an
// ingress statement may wait behind. A lock not granted in this time is not waited for: the
// next hourly pass tries again, days ahead.
const PARTITION_LOCK_TIMEOUT = '2s';

/**
 * Creates the missing partitions of `days` days from `from` (YYYY-MM-DD; by
 * default today, in the database's time zone); returns the days created.
 * Earlier days are for tests and benchmarks that write a past log.
 */
export async function ensureDayPartitions(db: Db = prisma, days = DAYS_AHEAD, from: string | null = null): Promise<string[]> {
  const missing = await db.$queryRawUnsafe<{ day: string }[]>(
    `SELECT d::date::text AS "day" FROM generate_series(coalesce($2::date, CURRENT_DATE), coalesce($2::date, CURRENT_DATE) + $1::int - 1, interval '1 day') d
      WHERE to_regclass(${partitionNameSql(DELIVERY, 'd')}) IS NULL`,
    days,
    from,
  );
  const created: string[] = [];
  for (const { day } of missing) {
    const made = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
      // Instances starting together: one creates, the others find it made.
      await advisoryXactLock(tx, lockKeys.dayPartitions);
      const [exists] = await tx.$queryRawUnsafe<{ found: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS "found"`, `"${partitionName(DELIVERY, day)}"`);
      if (exists?.found) return false;
      for (const table of [DELIVERY, COPIES]) {
        const name = partitionName(table, day);
        // Made apart and attached: attaching locks the partitioned table less than CREATE ... PARTITION OF would.
        await tx.$executeRawUnsafe(`CREATE TABLE "${name}" (LIKE "${table}" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)`);
        await tx.$executeRawUnsafe(`ALTER TABLE "${table}" ATTACH PARTITION "${name}" FOR VALUES FROM ('${day}') TO ('${day}'::date + 1)`);
      }
      return true;
    });
    if (made) created.push(day);
  }
  return created;
}

/**
 * Moves an entry to the kept partition, with its jsonb copy (no foreign key
 * takes it along, see the schema's Delivery): before it starts runs. Under
 * the copy job's lock, so a copy being written from the entry's old place
 * is not left behind in the day's partition.
 */
export async function moveToKeptPartition(tx: Tx, id: string): Promise<void> {
  const [moved] = await tx.$queryRawUnsafe<{ moved: boolean }[]>(
    `UPDATE "Delivery" SET "bucket" = ${KEPT} WHERE "id" = $1 AND "bucket" <> ${KEPT} RETURNING true AS "moved"`,
    id,
  );
  if (!moved) return;
  await advisoryXactLock(tx, lockKeys.bodyCopies);
  await tx.$executeRawUnsafe(`UPDATE "DeliveryJson" SET "bucket" = ${KEPT} WHERE "deliveryId" = $1 AND "bucket" <> ${KEPT}`, id);
}

/** The day partitions of the log, oldest first, and whether a detach of one was interrupted. */
async function dayPartitions(db: Db): Promise<{ table: string; day: string; attached: boolean; pending: boolean }[]> {
  return db.$queryRawUnsafe(
    `SELECT c."relname" AS "table", to_date(substring(c."relname" from '_p([0-9]{8})$'), 'YYYYMMDD')::text AS "day",
            i."inhrelid" IS NOT NULL AS "attached", coalesce(i."inhdetachpending", false) AS "pending"
       FROM pg_class c
       LEFT JOIN pg_inherits i ON i."inhrelid" = c."oid"
      WHERE c."relkind" = 'r' AND c."relnamespace" = (SELECT "oid" FROM pg_namespace WHERE "nspname" = current_schema())
        AND c."relname" ~ '^(Delivery|DeliveryJson)_p[0-9]{8}$'
      ORDER BY 2, 1`,
  );
}

export type DayPruneOptions = { batch: number; restRatio: number; minEntries: number };

/**
 * Drops the day partitions entirely past `cutoff` (see above); returns the
 * entries removed. Stops, leaving the rest to the next pass, when the lease
 * is lost, or when a partition cannot be detached: another instance is
 * dropping it.
 */
export async function dropExpiredDays(db: Db, cutoff: Date, lease: Lease, options: DayPruneOptions): Promise<number> {
  const partitions = await dayPartitions(db);
  const days = [...new Set(partitions.map((p) => p.day))].filter((day) => Date.parse(`${day}T00:00:00Z`) + 86_400_000 <= cutoff.getTime());
  let removed = 0;
  for (const day of days) {
    const mine = partitions.filter((p) => p.day === day);
    const log = mine.find((p) => p.table === partitionName(DELIVERY, day));
    if (log?.attached && !log.pending) {
      if (!(await keepNewest(db, day, lease, options.minEntries))) return removed;
      const expired = await deleteIdentities(db, day, lease, options);
      if (expired === null) return removed;
      removed += expired;
    }
    // The copies first: an entry is never left without its copy.
    for (const table of [COPIES, DELIVERY]) {
      const partition = mine.find((p) => p.table === partitionName(table, day));
      if (partition && !(await detachAndDrop(db, table, partition))) return removed;
    }
  }
  return removed;
}

/**
 * Moves the day's entries that are among their webhook's newest to the kept
 * partition, with their copies (under the copy job's lock, as
 * moveToKeptPartition). Index lookups only, each in the index's order with a
 * LIMIT so that no estimate can turn it into a scan of the day (measured at
 * the limits: 6.7 s and a full read of the day's 1.6 GB otherwise): whether a
 * webhook has entries that day, its floor (the 50th newest entry; none for a
 * webhook with fewer), and at most 50 entries from the floor up.
 */
async function keepNewest(db: Db, day: string, lease: Lease, minEntries: number): Promise<boolean> {
  const [step] = await db.$transaction(
    async (tx) => {
      await advisoryXactLock(tx, lockKeys.bodyCopies);
      return tx.$queryRawUnsafe<{ leased: boolean }[]>(
        `WITH ${renewLeaseCte(3)}, floors AS (
           SELECT w."id" AS "webhookId", coalesce(f."at", '-infinity'::timestamp) AS "at", coalesce(f."id", '') AS "id"
             FROM "Webhook" w
            CROSS JOIN LATERAL (
              SELECT 1 FROM "Delivery" x WHERE x."bucket" = $1::date AND x."webhookId" = w."id" ORDER BY x."receivedAt" DESC, x."id" DESC LIMIT 1
            ) e
             LEFT JOIN LATERAL (
               SELECT "receivedAt" AS "at", "id" FROM "Delivery" WHERE "webhookId" = w."id"
                ORDER BY "receivedAt" DESC, "id" DESC OFFSET $2 LIMIT 1
             ) f ON true
         ), kept AS (
           SELECT k."id" FROM floors f CROSS JOIN LATERAL (
             SELECT d."id" FROM "Delivery" d
              WHERE d."bucket" = $1::date AND d."webhookId" = f."webhookId" AND d."receivedAt" >= f."at" AND (d."receivedAt", d."id") >= (f."at", f."id")
              ORDER BY d."receivedAt" DESC, d."id" DESC LIMIT $2 + 1
           ) k
         ), moved AS (
           UPDATE "Delivery" SET "bucket" = ${KEPT}
            WHERE "bucket" = $1::date AND "id" IN (SELECT "id" FROM kept) AND EXISTS (SELECT 1 FROM lease)
           RETURNING "id"
         ), copies AS (
           UPDATE "DeliveryJson" SET "bucket" = ${KEPT} WHERE "bucket" = $1::date AND "deliveryId" IN (SELECT "id" FROM moved)
           RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM lease) AS "leased", (SELECT count(*) FROM moved)::int AS "moved", (SELECT count(*) FROM copies)::int AS "copies"`,
        day,
        minEntries - 1,
        lease.key,
        lease.token,
      );
    },
    // At most minEntries entries per webhook move; the time is for waiting on the copy job's lock.
    { timeout: 60_000 },
  );
  return step?.leased === true;
}

/** Deletes the identities of the day's entries, a batch at a time; returns the day's entries, or null when the lease was lost. */
async function deleteIdentities(db: Db, day: string, lease: Lease, options: DayPruneOptions): Promise<number | null> {
  let after = '';
  let seen = 0;
  for (;;) {
    const started = performance.now();
    const [step] = await db.$queryRawUnsafe<{ leased: boolean; seen: number; last: string | null }[]>(
      `WITH ${renewLeaseCte(4)}, batch AS (
         SELECT "id" FROM "Delivery" WHERE "bucket" = $1::date AND "id" > $2 AND EXISTS (SELECT 1 FROM lease)
          ORDER BY "id" LIMIT $3
       ), gone AS (
         DELETE FROM "DeliveryIdentity" i USING batch b WHERE i."acceptedId" = b."id"
         RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM lease) AS "leased", (SELECT count(*) FROM batch)::int AS "seen",
              (SELECT max("id") FROM batch) AS "last", (SELECT count(*) FROM gone)::int AS "gone"`,
      day,
      after,
      options.batch,
      lease.key,
      lease.token,
    );
    if (!step?.leased) return null;
    seen += step.seen;
    if (step.seen < options.batch || !step.last) return seen;
    after = step.last;
    await restAfter(started, options.restRatio);
  }
}

/**
 * Detaches a day's partition and drops it. CONCURRENTLY: the detach does not
 * lock the ingress out of the partitioned table (it waits for the
 * transactions that use it instead). An interrupted detach is finished.
 */
async function detachAndDrop(db: Db, table: string, partition: { table: string; attached: boolean; pending: boolean }): Promise<boolean> {
  try {
    if (partition.pending) await db.$executeRawUnsafe(`ALTER TABLE "${table}" DETACH PARTITION "${partition.table}" FINALIZE`);
    else if (partition.attached) await db.$executeRawUnsafe(`ALTER TABLE "${table}" DETACH PARTITION "${partition.table}" CONCURRENTLY`);
    await db.$executeRawUnsafe(`DROP TABLE IF EXISTS "${partition.table}"`);
    return true;
  } catch (error) {
    // Another instance is dropping it, or a lock was not granted in time.
    if (isRetryable(error)) return false;
    throw error;
  }
}

function isRetryable(error: unknown): boolean {
  const text = error instanceof Error ? error.message : String(error);
  return /is not a partition of|does not exist|lock timeout|could not obtain lock/i.test(text);
}
