import 'server-only';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { lockKeys, tryAdvisoryXactLock } from '@/lib/platform/db/locks';
import { jsonbCopyOf } from '@/lib/ingress/filters/sql';
import { restAfter } from '@/lib/platform/pace';

// Backtest's jsonb copies (docs/filters.md, "Backtest in SQL"). The ingress
// stores the body as exact text and nothing else; this housekeeping job later
// writes a DeliveryJson row for each new body. A body that jsonb cannot hold
// faithfully gets a row without a copy (jsonbCopyOf), so a valid delivery can
// never fail here or at the ingress, and Backtest evaluates it in TypeScript.
// The conversion happens in Node, so PostgreSQL never parses an unsafe body.
//
// The job never writes to Delivery: an update there would rewrite every one
// of its indexes, the body's trigram index included, and cost the ingress
// (docs/benchmarks.md). What it has done is a cursor instead, `copiedThrough`
// in InstanceSetting: every delivery received at or before it has its
// DeliveryJson row. A delivery's receivedAt is its inserting transaction's
// now(), so a row still uncommitted is never older than the oldest
// transaction in progress; the cursor stops a second before that (the
// horizon), and each pass reads only what is newer than the cursor.

export const COPIED_THROUGH = 'backtest.copiedThrough';

export type CopyBatch = { rows: number; chars: number };
/** PostgreSQL: large statements on a pooled connection. */
export const SERVER_BATCH: CopyBatch = { rows: 500, chars: 4_000_000 };
/** PGlite, one connection shared with the ingress: short statements, so a delivery waits for one at most. */
export const EMBEDDED_BATCH: CopyBatch = { rows: 50, chars: 256_000 };

/** The cursor as SQL: receivedAt values at or before it all have a copy. */
export const COPIED_THROUGH_SQL = `COALESCE((SELECT "value"::timestamp(3) FROM "InstanceSetting" WHERE "key" = '${COPIED_THROUGH}'), '-infinity'::timestamp)`;

/**
 * A delivery `d` without its DeliveryJson row, probed through the primary key
 * row by row. OFFSET 0 keeps the planner from turning it into an anti-join,
 * which it may hash over every copy: PGlite runs no ANALYZE (no autovacuum),
 * and with its default estimates that read the whole table on each pass.
 */
export const NO_COPY_YET = `NOT EXISTS (SELECT 1 FROM "DeliveryJson" c WHERE c."deliveryId" = d."id" OFFSET 0)`;

type Options = { batch?: CopyBatch; budgetMs?: number; transaction?: boolean; restRatio?: number };

// After each batch the job rests three times as long as the batch took
// (lib/platform/pace.ts): at most a quarter of a core, and on PGlite the ingress
// gets the connection between batches. It still copies several times faster
// than the ingress accepts at full load.
const REST_RATIO = 3;

/**
 * Copies new bodies until none is left or `budgetMs` has passed; returns how
 * many were copied. With `transaction` (PostgreSQL, several instances), each
 * batch runs in a transaction under an advisory lock, and an instance that
 * finds it taken skips its turn.
 */
export async function copyPendingBodies(db: Db = prisma, options: Options = {}): Promise<number> {
  const { batch = SERVER_BATCH, budgetMs = 2_000, transaction = false, restRatio = REST_RATIO } = options;
  const started = Date.now();
  let total = 0;
  for (;;) {
    const batchStarted = performance.now();
    const copied = transaction
      ? await db.$transaction(async (tx) => {
          // Two instances must not copy the same rows at once (it would be correct, only wasted).
          return (await tryAdvisoryXactLock(tx, lockKeys.bodyCopies)) ? copyBatch(tx, batch) : null;
        })
      : await copyBatch(db, batch);
    if (copied === null) return total;
    total += copied.count;
    if (!copied.more || Date.now() - started > budgetMs) return total;
    await restAfter(batchStarted, restRatio);
  }
}

async function copyBatch(db: DbOrTx, batch: CopyBatch): Promise<{ count: number; more: boolean }> {
  // The horizon first, then the rows: a transaction that commits rows this
  // read cannot see was either in progress now or starts later.
  const [{ horizon }] = await db.$queryRawUnsafe<[{ horizon: string }]>(
    `SELECT ((SELECT least(now(), min("xact_start")) FROM pg_stat_activity WHERE "datname" = current_database()) - interval '1 second')::timestamp(3)::text AS "horizon"`,
  );
  const rows = await db.$queryRawUnsafe<{ id: string; body: string; receivedAt: string }[]>(
    `SELECT d."id", d."body", d."receivedAt"::text AS "receivedAt" FROM "Delivery" d
     WHERE d."receivedAt" > ${COPIED_THROUGH_SQL} AND d."body" IS NOT NULL
       AND ${NO_COPY_YET}
     ORDER BY d."receivedAt" LIMIT $1`,
    batch.rows,
  );
  // With more rows waiting, everything before the last row's millisecond is
  // copied (rows of that same millisecond may not be); otherwise everything
  // up to the horizon is. Only the batch's last statement moves the cursor.
  const last = rows.length === batch.rows ? rows[rows.length - 1]!.receivedAt : null;
  let chunk: { id: string; json: string | null }[] = [];
  let chars = 0;
  const flush = async (moveCursor: boolean) => {
    await db.$executeRawUnsafe(
      `WITH v AS (SELECT * FROM json_to_recordset($1::json) AS v("id" text, "json" text)),
       copied AS (
         INSERT INTO "DeliveryJson" ("deliveryId", "webhookId", "receivedAt", "json")
         SELECT d."id", d."webhookId", d."receivedAt", v."json"::jsonb FROM v JOIN "Delivery" d ON d."id" = v."id"
         ON CONFLICT ("deliveryId") DO NOTHING
       )
       INSERT INTO "InstanceSetting" ("key", "value", "updatedAt")
       SELECT $2, least($3::timestamp(3), $4::timestamp(3) - interval '1 millisecond')::text, now() WHERE $5
       ON CONFLICT ("key") DO UPDATE SET "value" = greatest("InstanceSetting"."value"::timestamp(3), EXCLUDED."value"::timestamp(3))::text, "updatedAt" = now()`,
      JSON.stringify(chunk),
      COPIED_THROUGH,
      horizon,
      last,
      moveCursor,
    );
    chunk = [];
    chars = 0;
  };
  for (const row of rows) {
    const json = jsonbCopyOf(row.body);
    if (chunk.length > 0 && chars + (json?.length ?? 0) > batch.chars) await flush(false);
    chunk.push({ id: row.id, json });
    chars += json?.length ?? 0;
  }
  await flush(true);
  return { count: rows.length, more: last !== null };
}
