import 'server-only';
import { prisma, type DbOrTx } from '@/lib/db';
import { jsonbCopyOf } from '@/lib/filters/sql';

// Backtest's jsonb copies (docs/filters.md, "Backtest in SQL"). The ingress
// stores the body as exact text and nothing else; this housekeeping job later
// writes a DeliveryJson row for each body it has not looked at (found through
// a partial index) and marks the delivery checked. A body that jsonb cannot
// hold faithfully gets a row without a copy (jsonbCopyOf), so a valid
// delivery can never fail here or at the ingress, and Backtest evaluates it in
// TypeScript. The conversion happens in Node, so PostgreSQL never parses an
// unsafe body.

const BATCH_ROWS = 500;
/** Characters of copies sent in one statement. */
const BATCH_CHARS = 4_000_000;

/**
 * Copies pending bodies until none is left or `budgetMs` has passed; returns
 * how many were checked. Safe to run on several instances at once: each row
 * gets the same copy whoever writes it first.
 */
export async function copyPendingBodies(db: DbOrTx = prisma, budgetMs = 2_000): Promise<number> {
  const started = Date.now();
  let total = 0;
  for (;;) {
    const rows = await db.$queryRawUnsafe<{ id: string; body: string }[]>(
      `SELECT "id", "body" FROM "Delivery" WHERE NOT "bodyJsonChecked" AND "body" IS NOT NULL LIMIT $1`,
      BATCH_ROWS,
    );
    let chunk: { id: string; json: string | null }[] = [];
    let chars = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      await db.$executeRawUnsafe(
        `WITH v AS (SELECT * FROM json_to_recordset($1::json) AS v("id" text, "json" text)),
         copied AS (
           INSERT INTO "DeliveryJson" ("deliveryId", "webhookId", "receivedAt", "json")
           SELECT d."id", d."webhookId", d."receivedAt", v."json"::jsonb FROM v JOIN "Delivery" d ON d."id" = v."id"
           ON CONFLICT ("deliveryId") DO NOTHING
         )
         UPDATE "Delivery" d SET "bodyJsonChecked" = true FROM v WHERE d."id" = v."id"`,
        JSON.stringify(chunk),
      );
      chunk = [];
      chars = 0;
    };
    for (const row of rows) {
      const json = jsonbCopyOf(row.body);
      if (chars + (json?.length ?? 0) > BATCH_CHARS) await flush();
      chunk.push({ id: row.id, json });
      chars += json?.length ?? 0;
    }
    await flush();
    total += rows.length;
    if (rows.length < BATCH_ROWS || Date.now() - started > budgetMs) return total;
  }
}
