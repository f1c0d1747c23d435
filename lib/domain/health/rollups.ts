import 'server-only';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { lockKeys, tryAdvisoryXactLock } from '@/lib/platform/db/locks';

// Per-webhook, per-minute request counts (DeliveryRollup) and accepted
// deliveries per event type (DeliveryTypeRollup), kept by a
// housekeeping job from the stored log, never by the ingress request. Each
// run recomputes every minute from a little before its last run up to now,
// from scratch: entries commit after their receivedAt (their transaction's
// now(), milliseconds before the commit) and a minute's refused summary keeps
// counting until that minute ends, so a minute is only trusted once
// RECOMPUTE_MS have passed over it. The window is kept short because the run
// reads every entry in it: at 200 deliveries a second, two minutes are 24,000
// rows, and on PGlite the ingress waits while they are counted. Recomputing
// is idempotent, so two instances doing it, or a run that dies half way,
// leave the same counts. Rollups outlive the entries they count (retention
// prunes entries after 7 days, ROLLUP_KEEP_MS keeps the 7-day chart whole).
// The first run (after an upgrade, or on a log filled before rollups) has
// the whole kept period to count: it does so in 6-hour chunks, one short
// transaction each (8 days of 5 webhooks at their limits took 14-24 s in one
// transaction; a full factory's would near the transaction's 120 s limit).

/** How far back each run recomputes, before its previous run. */
export const RECOMPUTE_MS = 2 * 60 * 1000;
/** Rollups kept: 8 days (the 7-day chart and a day of margin). */
export const ROLLUP_KEEP_MS = 8 * 24 * 60 * 60 * 1000;
const WATERMARK_KEY = 'health-rollups-until';

/** The start of the UTC minute holding `ms`. */
export const floorMinute = (ms: number) => Math.floor(ms / 60_000) * 60_000;

/** Deletes every rollup and the watermark, as on a log from before rollups: the next run catches up on the kept period (tests and benchmarks). */
export async function forgetRollups(db: Db = prisma): Promise<void> {
  await db.$transaction([db.instanceSetting.deleteMany({ where: { key: WATERMARK_KEY } }), db.deliveryRollup.deleteMany({}), db.deliveryTypeRollup.deleteMany({})]);
}

/**
 * The time up to which rollups are complete: entries received before it are
 * counted in DeliveryRollup; later ones are read from the log itself. Null
 * before the first run.
 */
export async function rollupsUntil(db: DbOrTx = prisma): Promise<Date | null> {
  const row = await db.instanceSetting.findUnique({ where: { key: WATERMARK_KEY }, select: { value: true } });
  if (!row) return null;
  const ms = Number(row.value);
  return Number.isFinite(ms) ? new Date(ms) : null;
}

/**
 * Recomputes the recent minutes, and on the first run (or after a long
 * stop) catches up on the whole kept period: in chunks of CATCH_UP_CHUNK_MS,
 * each its own short transaction that moves the watermark on, so readers are
 * right at every step (they read the log past the watermark), no transaction
 * reads more than a chunk of the log, and a catch-up stopped half way goes on
 * from its last chunk. Returns the chunks recomputed: 0 when another instance
 * held the lock.
 */
export async function refreshRollups(db: Db = prisma, now: Date = new Date()): Promise<number> {
  const caughtUp = floorMinute(now.getTime());
  // Each chunk after the first starts RECOMPUTE_MS before the previous one's end.
  const most = Math.ceil(ROLLUP_KEEP_MS / (CATCH_UP_CHUNK_MS - RECOMPUTE_MS)) + 1;
  for (let chunks = 0; chunks < most; ) {
    const until = await refreshRollupChunk(db, now);
    if (until === null) return chunks;
    chunks += 1;
    if (until.getTime() >= caughtUp) return chunks;
  }
  throw new Error('health rollups did not catch up');
}

/** The longest span of the log one run's transaction recomputes: 6 hours (a full factory at its limits: about 430,000 entries). */
export const CATCH_UP_CHUNK_MS = 6 * 60 * 60 * 1000;

/** Recomputes one chunk from a little before the watermark. Returns the new watermark, or null when another instance held the lock. */
export async function refreshRollupChunk(db: Db = prisma, now: Date = new Date()): Promise<Date | null> {
  return db.$transaction(
    async (tx) => {
      // One instance recomputes at a time; the others skip their turn.
      if (!(await tryAdvisoryXactLock(tx, lockKeys.healthRollups))) return null;
      const previous = await tx.instanceSetting.findUnique({ where: { key: WATERMARK_KEY }, select: { value: true } });
      const previousMs = previous ? Number(previous.value) : NaN;
      const earliest = now.getTime() - ROLLUP_KEEP_MS;
      const from = new Date(floorMinute(Number.isFinite(previousMs) ? Math.max(earliest, Math.min(previousMs, now.getTime()) - RECOMPUTE_MS) : earliest));
      // The watermark is the minute the run started in (everything before it is counted), or the chunk's end while catching up.
      const until = new Date(Math.min(floorMinute(now.getTime()), from.getTime() + CATCH_UP_CHUNK_MS));
      await tx.$executeRawUnsafe('DELETE FROM "DeliveryRollup" WHERE "minute" >= $1 OR "minute" < $2', from, new Date(earliest));
      await tx.$executeRawUnsafe(
        `INSERT INTO "DeliveryRollup" ("webhookId", "minute", "status", "count")
         SELECT "webhookId", date_trunc('minute', "receivedAt"), "status",
                sum(CASE WHEN "status" = 'refused' THEN coalesce("refusedCount", 1) ELSE 1 END)::int
         FROM "Delivery"
         WHERE "receivedAt" >= $1 AND "receivedAt" < $2
         GROUP BY 1, 2, 3`,
        from,
        until,
      );
      // Accepted deliveries by event type ('' for none), for the chart by type: the same minutes, one watermark.
      await tx.$executeRawUnsafe('DELETE FROM "DeliveryTypeRollup" WHERE "minute" >= $1 OR "minute" < $2', from, new Date(earliest));
      await tx.$executeRawUnsafe(
        `INSERT INTO "DeliveryTypeRollup" ("webhookId", "minute", "eventType", "count")
         SELECT "webhookId", date_trunc('minute', "receivedAt"), coalesce("eventType", ''), count(*)::int
         FROM "Delivery"
         WHERE "receivedAt" >= $1 AND "receivedAt" < $2 AND "status" = 'accepted'
         GROUP BY 1, 2, 3`,
        from,
        until,
      );
      await tx.instanceSetting.upsert({
        where: { key: WATERMARK_KEY },
        create: { key: WATERMARK_KEY, value: String(until.getTime()) },
        update: { value: String(until.getTime()) },
      });
      return until;
    },
    { timeout: 120_000 },
  );
}
