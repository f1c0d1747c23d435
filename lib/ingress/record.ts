import 'server-only';
import { sql } from '@/lib/db/sql';
import { randomBase62 } from '@/lib/crypto/random';
import type { Identity } from '@/lib/ingress/identity';
import { counterUpsert, type FoldedRateLimit } from '@/lib/ingress/rate-limit';
import { newRunId, queueFullDetail, type NewRun } from '@/lib/runs/start';

// Writing the delivery log. An accepted request is one SQL statement: it
// claims the identity in DeliveryIdentity (primary key: webhook, delivery
// ID) with ON CONFLICT DO NOTHING and inserts the log entry as Accepted when
// the claim succeeded, Duplicate when it did not. The database decides, so
// concurrent identical requests produce exactly one Accepted; the 202 is
// sent only after the statement committed.
//
// On PostgreSQL the statement also counts the delivery against the webhook's
// rate limit and writes nothing when it is over: one round trip and one
// commit per delivery instead of two (see docs/benchmarks.md).
//
// The runs a delivery starts are inserted by the same statement, and only
// when the identity was claimed: an accepted delivery never exists without
// its runs, and a duplicate starts nothing. The automation must still be
// enabled when the statement runs (the matching used the cached triggers).
//
// The same statement enforces the factory's run queue limit
// (TRIPLINE_RUN_QUEUE_LIMIT): while the factory has that many queued runs,
// the delivery is still Accepted and logged, but starts no runs, and its log
// entry says "run queue full" (Why not repeats it per automation). The count
// stops at the limit, so it costs at most that many index entries; it is a
// soft limit: deliveries accepted at the same instant may each see room.

export type RejectedStatus = 'rejected_auth' | 'rejected_invalid_json' | 'rejected_too_large';

/** Entries written with metadata only: rejections, and verification handshakes (lib/ingress/handshakes.ts), which start nothing. */
export type MetadataOnlyStatus = RejectedStatus | 'handshake';

const newDeliveryRowId = () => `dl_${randomBase62(22)}`;

/** A metadata-only entry: a rejection, or a verification handshake. */
export type RejectedEntry = {
  webhookId: string;
  status: MetadataOnlyStatus;
  identity: Identity;
  size: number;
  detail: string;
  remoteAddress: string | null;
};

export type BudgetedWrite = { written: true } | { written: false; retryAfterSeconds: number };

/** Writes a metadata-only entry unconditionally (the caller has already checked its budget). */
export async function recordRejected(input: RejectedEntry): Promise<void> {
  await sql(
    `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail", "remoteAddress")
     VALUES ($1, $2, $3, $4::"IdentitySource", $5::"DeliveryStatus", $6, now(), $7, $8)`,
    [newDeliveryRowId(), input.webhookId, input.identity.deliveryId, input.identity.source, input.status, input.size, input.detail, input.remoteAddress],
  );
}

// The refused summary of a webhook and a minute (UTC): its row ID is made of
// the two, so concurrent refusals on any instance add to one entry with a
// primary-key upsert, and a refusal that arrives after the entry was written
// still counts. The detail says the count in words for the log's list.
const MINUTE = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI')`;
const refusedDetail = (count: string) =>
  `${count} || CASE WHEN ${count} = 1 THEN ' request' ELSE ' requests' END || ' without valid credentials refused with 429 in the minute from ' || to_char(now() AT TIME ZONE 'UTC', 'HH24:MI') || ' UTC; they are counted here, not logged one by one'`;

function refusalUpsert(webhookId: string, condition: string): string {
  return `INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail", "refusedCount")
       SELECT 'rf_' || ${webhookId} || '_' || ${MINUTE}, ${webhookId}, 'refused:' || ${MINUTE} || 'Z', 'request_id'::"IdentitySource",
              'refused'::"DeliveryStatus", 0, now(), ${refusedDetail('1')}, 1
        WHERE ${condition}
       ON CONFLICT ("id") DO UPDATE SET
         "refusedCount" = "Delivery"."refusedCount" + 1,
         "detail" = ${refusedDetail('("Delivery"."refusedCount" + 1)')}`;
}

/** Counts one refused request in its webhook's summary entry for the current minute. */
export async function recordRefusal(webhookId: string): Promise<void> {
  await sql(refusalUpsert('$1::text', 'true'), [webhookId]);
}

/**
 * PostgreSQL: a metadata-only entry under the webhook's budget of
 * unauthenticated entries, in one statement that counts the request (the
 * rate-limiter-flexible row, as for accepted deliveries) and writes either
 * the entry, when within the budget, or one more refusal in the minute's
 * summary. `always` writes the entry even past the budget (still counted):
 * for a handshake whose secret was already stored, which must be answered.
 */
export async function recordRejectedCounted(input: RejectedEntry, budget: FoldedRateLimit, always = false): Promise<BudgetedWrite> {
  const now = Date.now();
  const params: unknown[] = [
    newDeliveryRowId(),
    input.webhookId,
    input.identity.deliveryId,
    input.identity.source,
    input.status,
    input.size,
    input.detail,
    input.remoteAddress,
    budget.key,
    now + budget.durationMs,
    now,
    budget.points,
  ];
  const within = `(SELECT "points" <= $12::int FROM counted)${always ? ' OR true' : ''}`;
  const [row] = await sql<{ written: boolean; expire: string | number }>(
    `WITH counted AS (
       ${counterUpsert('$9::varchar', '$10::bigint', '$11::bigint')}
     ),
     entry AS (
       INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail", "remoteAddress")
       SELECT $1::text, $2::text, $3::text, $4::"IdentitySource", $5::"DeliveryStatus", $6::int, now(), $7::text, $8::text
        WHERE ${within}
       RETURNING 1
     ),
     refused AS (
       ${refusalUpsert('$2::text', `NOT (${within})`)}
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM entry) AS "written", (SELECT "expire" FROM counted) AS "expire"`,
    params,
  );
  if (row?.written) return { written: true };
  return { written: false, retryAfterSeconds: Math.max(1, Math.ceil((Number(row?.expire ?? now) - now) / 1000)) };
}

export type AcceptOutcome =
  | { limited: false; id: string; status: 'accepted' | 'duplicate'; runs: number; queueFull: boolean }
  | { limited: true; retryAfterSeconds: number };

export async function recordAccepted(input: {
  webhookId: string;
  factoryId: string;
  identity: Identity;
  size: number;
  body: string;
  headers: Record<string, string>;
  remoteAddress: string | null;
  runs: NewRun[];
  /** Queued runs per factory past which this delivery starts none. */
  runQueueLimit: number;
  rateLimit?: FoldedRateLimit;
}): Promise<AcceptOutcome> {
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${params.length}::${cast}`;
  };
  const id = newDeliveryRowId();
  const webhookId = param(input.webhookId, 'text');
  const deliveryId = param(input.identity.deliveryId, 'text');
  const rowId = param(id, 'text');
  const ctes: string[] = [];

  // The delivery rate limit, counted here with rate-limit.ts's counterUpsert
  // (the library's own upsert, on the library's row), so the limiter and this
  // statement share one count.
  let allowed = 'true';
  const now = Date.now();
  if (input.rateLimit) {
    const key = param(input.rateLimit.key, 'varchar');
    const expire = param(now + input.rateLimit.durationMs, 'bigint');
    const at = param(now, 'bigint');
    ctes.push(`counted AS (
       ${counterUpsert(key, expire, at)}
     )`);
    allowed = `(SELECT "points" <= ${param(input.rateLimit.points, 'int')} FROM counted)`;
  }
  ctes.push(`claimed AS (
       INSERT INTO "DeliveryIdentity" ("webhookId", "deliveryId", "acceptedId", "createdAt")
       SELECT ${webhookId}, ${deliveryId}, ${rowId}, now() WHERE ${allowed}
       ON CONFLICT DO NOTHING
       RETURNING 1
     )`);
  let queueFull = 'false';
  if (input.runs.length) {
    const factoryId = param(input.factoryId, 'text');
    const limit = param(input.runQueueLimit, 'int');
    ctes.push(`room AS (
       SELECT count(*) < ${limit} AS "ok"
         FROM (SELECT 1 FROM "Run" WHERE "status" = 'queued' AND "factoryId" = ${factoryId} LIMIT ${limit}) queued
     )`);
    queueFull = 'NOT (SELECT "ok" FROM room)';
    ctes.push(`runs AS (
       INSERT INTO "Run" ("id", "factoryId", "automationId", "deliveryId", "status", "prompt", "envelope", "createdAt")
       SELECT r."id", ${factoryId}, r."automationId", ${rowId}, 'queued'::"RunStatus", r."prompt", r."envelope"::jsonb, now()
         FROM unnest(${param(input.runs.map(newRunId), 'text[]')}, ${param(
           input.runs.map((r) => r.automationId),
           'text[]',
         )}, ${param(
           input.runs.map((r) => r.prompt),
           'text[]',
         )}, ${param(
           input.runs.map((r) => JSON.stringify(r.envelope)),
           'text[]',
         )}) AS r("id", "automationId", "prompt", "envelope")
         JOIN "Automation" a ON a."id" = r."automationId" AND a."enabled"
        WHERE EXISTS (SELECT 1 FROM claimed) AND (SELECT "ok" FROM room)
       RETURNING 1
     )`);
  }
  const accepted = 'EXISTS (SELECT 1 FROM claimed)';
  ctes.push(`delivery AS (
       INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "body", "headers", "remoteAddress", "detail")
       SELECT ${rowId}, ${webhookId}, ${deliveryId}, ${param(input.identity.source, '"IdentitySource"')},
              CASE WHEN ${accepted} THEN 'accepted'::"DeliveryStatus" ELSE 'duplicate'::"DeliveryStatus" END,
              ${param(input.size, 'int')}, now(),
              CASE WHEN ${accepted} THEN ${param(input.body, 'text')} ELSE NULL END,
              CASE WHEN ${accepted} THEN ${param(JSON.stringify(input.headers), 'jsonb')} ELSE NULL END,
              ${param(input.remoteAddress, 'text')},
              CASE WHEN NOT ${accepted} THEN 'identity already accepted'
                   WHEN ${queueFull} THEN ${param(queueFullDetail(input.runs.length, input.runQueueLimit), 'text')} END
        WHERE ${allowed}
       RETURNING "status"::text AS "status"
     )`);
  const [row] = await sql<{ status: 'accepted' | 'duplicate' | null; runs: number; queueFull: boolean; expire: string | number | null }>(
    `WITH ${ctes.join(',\n     ')}
     SELECT (SELECT "status" FROM delivery) AS "status",
            ${input.runs.length ? '(SELECT count(*) FROM runs)::int' : '0'} AS "runs",
            ${queueFull} AS "queueFull",
            ${input.rateLimit ? '(SELECT "expire" FROM counted)' : 'NULL'} AS "expire"`,
    params,
  );
  if (!row?.status) {
    return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((Number(row?.expire ?? now) - now) / 1000)) };
  }
  return { limited: false, id, status: row.status, runs: row.runs, queueFull: row.status === 'accepted' && row.queueFull };
}
