import 'server-only';
import { prisma, type Db, type DbOrTx } from '@/lib/platform/db';
import { lockKeys, tryAdvisoryXactLock } from '@/lib/platform/db/locks';
import { restAfter } from '@/lib/platform/pace';
import { extractEventType, headerLookup } from '@/lib/ingress/signatures/event-types';
import { eventTypeSourceOf } from '@/lib/ingress/signatures/registry';

// The event type of entries stored before migration delivery_event_type,
// read from their stored headers and body as the ingress reads new ones.
// The migration left a row `eventType.backfill` = "<horizon>|<last id>"
// when the log had entries with headers: this job walks the log in
// primary-key order up to that horizon (entries received later were typed
// by the ingress), a small batch at a time with a rest after each (as
// body-json.ts does), moves the cursor in the statement that writes the
// batch, and deletes the row when it reaches the end.

export const BACKFILL_KEY = 'eventType.backfill';

/** PostgreSQL: larger batches on a pooled connection; PGlite shares its one connection with the ingress. */
export const SERVER_TYPE_BATCH = 500;
export const EMBEDDED_TYPE_BATCH = 50;
const REST_RATIO = 3;

type Options = { batch?: number; budgetMs?: number; transaction?: boolean; restRatio?: number };

/** Types stored entries until none is left or `budgetMs` has passed; returns how many were read. */
export async function backfillEventTypes(db: Db = prisma, options: Options = {}): Promise<number> {
  const { batch = SERVER_TYPE_BATCH, budgetMs = 2_000, transaction = false, restRatio = REST_RATIO } = options;
  const started = Date.now();
  let total = 0;
  for (;;) {
    const batchStarted = performance.now();
    const done = transaction
      ? await db.$transaction(async (tx) => ((await tryAdvisoryXactLock(tx, lockKeys.eventTypeBackfill)) ? backfillBatch(tx, batch) : null))
      : await backfillBatch(db, batch);
    if (done === null) return total;
    total += done.count;
    if (!done.more || Date.now() - started > budgetMs) return total;
    await restAfter(batchStarted, restRatio);
  }
}

type Row = { id: string; headers: Record<string, string> | null; body: string | null; authMode: string; signatureScheme: string | null };

function typeOf(row: Row): string | null {
  const source = eventTypeSourceOf(row);
  if (!source || source.kind === 'none') return null;
  let body: unknown = null;
  try {
    body = row.body === null ? null : JSON.parse(row.body);
  } catch {
    body = null; // Stored bodies are valid JSON; an unreadable one has no type, as at the ingress.
  }
  return extractEventType(source, { header: headerLookup(row.headers ?? {}), body });
}

async function backfillBatch(db: DbOrTx, batch: number): Promise<{ count: number; more: boolean }> {
  const [setting] = await db.$queryRawUnsafe<{ value: string }[]>(`SELECT "value" FROM "InstanceSetting" WHERE "key" = $1`, BACKFILL_KEY);
  if (!setting) return { count: 0, more: false };
  const split = setting.value.indexOf('|');
  const horizon = setting.value.slice(0, split);
  const after = setting.value.slice(split + 1);
  const rows = await db.$queryRawUnsafe<Row[]>(
    `SELECT d."id", d."headers", d."body", w."authMode"::text AS "authMode", w."signatureScheme"
       FROM "Delivery" d JOIN "Webhook" w ON w."id" = d."webhookId"
      WHERE d."id" > $1 AND d."receivedAt" <= $2::timestamp(3) AND d."headers" IS NOT NULL AND d."eventType" IS NULL
      ORDER BY d."id" LIMIT $3`,
    after,
    horizon,
    batch,
  );
  const typed = rows.map((row) => ({ id: row.id, type: typeOf(row) })).filter((row) => row.type !== null);
  const more = rows.length === batch;
  // The rows and the cursor in one statement: a batch is written whole or not at all.
  await db.$executeRawUnsafe(
    `WITH v AS (SELECT * FROM json_to_recordset($1::json) AS v("id" text, "type" text)),
     typed AS (UPDATE "Delivery" d SET "eventType" = v."type" FROM v WHERE d."id" = v."id" AND d."eventType" IS NULL RETURNING 1),
     moved AS (UPDATE "InstanceSetting" SET "value" = $2, "updatedAt" = now() WHERE "key" = $3 AND $4 RETURNING 1)
     DELETE FROM "InstanceSetting" WHERE "key" = $3 AND NOT $4`,
    JSON.stringify(typed),
    `${horizon}|${rows.at(-1)?.id ?? after}`,
    BACKFILL_KEY,
    more,
  );
  return { count: rows.length, more };
}
