import 'server-only';
import { getDatabase } from '@/lib/platform/db';
import { sql } from '@/lib/platform/db/sql';
import { timeOrderedId } from '@/lib/platform/crypto/random';
import { groupCommitter, type GroupCommitter } from '@/lib/ingress/group-commit';
import { INGRESS_WAITING } from '@/lib/ingress/limits';
import type { Identity } from '@/lib/ingress/identity';
import { counterUpsert, type FoldedRateLimit } from '@/lib/ingress/rate-limit';
import { newRunId, queueFullDetail, type NewRun } from '@/lib/domain/runs/start';

// Writing the delivery log. An accepted request is one SQL statement: it
// claims the identity in DeliveryIdentity (primary key: webhook, delivery
// ID) with ON CONFLICT DO NOTHING and inserts the log entry as Accepted when
// the claim succeeded, Duplicate when it did not. The database decides, so
// concurrent identical requests produce exactly one Accepted; the 202 is
// sent only after the statement committed. Concurrent deliveries share one
// such statement, each with its own chain of CTEs, and so one round trip and
// one commit (group commit, see group-commit.ts and docs/benchmarks.md).
//
// On PostgreSQL the statement also counts the delivery against the webhook's
// rate limit and writes nothing when it is over: one round trip and one
// commit per delivery instead of two (see docs/benchmarks.md).
//
// The runs a delivery starts are inserted by the same statement, and only
// when the identity was claimed: an accepted delivery never exists without
// its runs, and a duplicate starts nothing. The automation must still be
// enabled when the statement runs (the matching used the cached triggers).
// A run of an automation with run control is inserted pending, with its
// group's key: the pending run is its group's mark (docs/decisions/0115). The
// statement never touches the group's row (RunGroup), so it never waits for
// the scheduler (lib/domain/run-control/scheduler.ts), which decides the run
// in its own transaction: the ingress pays for an index write, never for a decision.
//
// The same statement enforces the factory's run queue limit
// (TRIPLINE_RUN_QUEUE_LIMIT): while the factory has that many queued runs,
// the delivery is still Accepted and logged, but starts no runs, and its log
// entry says "run queue full" (Why not repeats it per automation). The count
// stops at the limit, so it costs at most that many index entries; it is a
// soft limit: deliveries accepted at the same instant may each see room (at
// most one batch of group commit per batch running, see MAX_BATCH).

export type RejectedStatus = 'rejected_auth' | 'rejected_invalid_json' | 'rejected_too_large';

/** Entries written with metadata only: rejections, and verification handshakes (lib/ingress/handshakes.ts), which start nothing. */
export type MetadataOnlyStatus = RejectedStatus | 'handshake' | 'refused_address';

const newDeliveryRowId = () => timeOrderedId('dl_', 16);

/** A metadata-only entry: a rejection, or a verification handshake. */
export type RejectedEntry = {
  webhookId: string;
  status: MetadataOnlyStatus;
  identity: Identity;
  size: number;
  detail: string;
  remoteAddress: string | null;
};

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
  `${count} || CASE WHEN ${count} = 1 THEN ' request' ELSE ' requests' END || ' without valid credentials refused with 429 (or 404 from outside the IP allowlist) in the minute from ' || to_char(now() AT TIME ZONE 'UTC', 'HH24:MI') || ' UTC; they are counted here, not logged one by one'`;

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

/** A refusal says which budget refused: the webhook's unauthenticated entries, or the failed-authentication budget of an address. */
export type BudgetedWrite = { written: true } | { written: false; retryAfterSeconds: number; budget: 'unauthenticated' | 'auth_failure' };

/**
 * PostgreSQL: a metadata-only entry under the webhook's budget of
 * unauthenticated entries, in one statement that counts the request (the
 * rate-limiter-flexible row, as for accepted deliveries) and writes either
 * the entry, when within the budget, or one more refusal in the minute's
 * summary. `always` writes the entry even past the budget (still counted):
 * for a handshake whose secret was already stored, which must be answered.
 * `authFailure`, for a failed authentication: the same statement first counts
 * it against its address's budget, and past that budget writes only the
 * refusal, without taking from the webhook's budget. One round trip and one
 * commit per request either way, which is what a flood of wrong credentials
 * costs the database.
 */
export async function recordRejectedCounted(
  input: RejectedEntry,
  budget: FoldedRateLimit,
  options: { always?: boolean; authFailure?: FoldedRateLimit; answered?: boolean } = {},
): Promise<BudgetedWrite> {
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
  const { authFailure } = options;
  if (authFailure) params.push(authFailure.key, now + authFailure.durationMs, authFailure.points);
  // The address's failed-authentication budget (true without one), then the webhook's, which counts only what the first let through.
  const failedOk = authFailure ? '(SELECT "points" <= $15::int FROM failed)' : 'true';
  const within = `COALESCE((SELECT "points" <= $12::int FROM counted), false)${options.always ? ' OR true' : ''}`;
  const [row] = await sql<{ written: boolean; expire: string | number | null; authRefused: boolean; failedExpire: string | number | null }>(
    `WITH ${authFailure ? `failed AS (${counterUpsert('$13::varchar', '$14::bigint', '$11::bigint')}),` : ''}
     counted AS (
       ${counterUpsert('$9::varchar', '$10::bigint', '$11::bigint', '1', failedOk)}
     ),
     entry AS (
       INSERT INTO "Delivery" ("id", "webhookId", "deliveryId", "identitySource", "status", "size", "receivedAt", "detail", "remoteAddress")
       SELECT $1::text, $2::text, $3::text, $4::"IdentitySource", $5::"DeliveryStatus", $6::int, now(), $7::text, $8::text
        WHERE ${within}
       RETURNING 1
     ),
     refused AS (
       ${refusalUpsert('$2::text', options.answered ? 'false' : `NOT (${within})`)}
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM entry) AS "written", (SELECT "expire" FROM counted) AS "expire",
            NOT ${failedOk} AS "authRefused", ${authFailure ? '(SELECT "expire" FROM failed)' : 'NULL::bigint'} AS "failedExpire"`,
    params,
  );
  if (row?.written) return { written: true };
  const refusedBy = row?.authRefused ? 'auth_failure' : 'unauthenticated';
  const expire = Number((refusedBy === 'auth_failure' ? row?.failedExpire : row?.expire) ?? now);
  return { written: false, retryAfterSeconds: Math.max(1, Math.ceil((expire - now) / 1000)), budget: refusedBy };
}

export type AcceptOutcome =
  /** `pending`: of `runs`, those inserted pending for run control's scheduler. */
  | { limited: false; id: string; status: 'accepted' | 'duplicate'; runs: number; pending: number; queueFull: boolean }
  | { limited: true; retryAfterSeconds: number };

export type AcceptInput = {
  webhookId: string;
  factoryId: string;
  identity: Identity;
  size: number;
  body: string;
  headers: Record<string, string>;
  /** The original values of the signature headers `headers` redacts (lib/platform/http/sensitive-headers.ts); null when none. */
  signatureHeaders?: Record<string, string> | null;
  remoteAddress: string | null;
  /** The kind of event, already bounded (lib/ingress/signatures/event-types.ts); null when none. */
  eventType?: string | null;
  runs: NewRun[];
  /** Queued runs per factory past which this delivery starts none. */
  runQueueLimit: number;
  rateLimit?: FoldedRateLimit;
  /** The W3C trace context its runs continue (with traces on), else null. */
  traceparent?: string | null;
  /** How the entry reached the log when not live from its sender (`stripe_import`); null for a live delivery. */
  origin?: string | null;
};

/**
 * Records an accepted (or duplicate) delivery and starts its runs; resolves
 * once committed. Concurrent calls share a statement and a commit
 * (group-commit.ts); the result is the same as if each had its own.
 */
export function recordAccepted(input: AcceptInput): Promise<AcceptOutcome> {
  return accepting().submit(input);
}

// PostgreSQL: a few batches at once, so a slow one (a delivery waiting on the
// same identity in another transaction) does not hold up every other; the
// pool has room for them and for the rest of the app. PGlite is one
// connection: one batch at a time, and every delivery that arrives while it
// runs goes in the next.
const POSTGRES_BATCHES_IN_FLIGHT = 3;
const MAX_BATCH = 64;
// Bodies in one statement at most (a body may be 256 KB): a batch of large deliveries stays a few MB.
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

const committerKey = Symbol.for('tripline.ingress.accepting');
type WithCommitter = typeof globalThis & { [committerKey]?: GroupCommitter<AcceptInput, AcceptOutcome> };

/** The process's group committer (on globalThis: Next.js may load this module in more than one bundle). */
export function accepting(): GroupCommitter<AcceptInput, AcceptOutcome> {
  const holder = globalThis as WithCommitter;
  holder[committerKey] ??= groupCommitter<AcceptInput, AcceptOutcome>({
    maxInFlight: () => (getDatabase().adapter.pool ? POSTGRES_BATCHES_IN_FLIGHT : 1),
    maxBatch: MAX_BATCH,
    weight: (input) => input.size,
    maxWeight: MAX_BATCH_BYTES,
    write: recordAcceptedBatch,
    waiting: INGRESS_WAITING,
  });
  return holder[committerKey];
}

/**
 * One statement, so one round trip and one commit, for several deliveries.
 * Each delivery has its own chain of CTEs (suffix _<n>), exactly the
 * statement it would have had alone, except for the rate limit: the
 * deliveries of one webhook take their points with one counter upsert
 * (a statement may update a row only once), and the k-th of them is within
 * the budget when the count before the batch plus k is. The webhooks come in
 * the order of their IDs, so two concurrent batches take the counters' row
 * locks in the same order and cannot deadlock. Two deliveries with one
 * identity in a batch are decided by the identity's primary key as they
 * would be in two statements: one claims it, the other is a Duplicate.
 */
export async function recordAcceptedBatch(inputs: AcceptInput[]): Promise<AcceptOutcome[]> {
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${params.length}::${cast}`;
  };
  const now = Date.now();
  const byWebhook = new Map<string, number[]>();
  inputs.forEach((input, index) => {
    const members = byWebhook.get(input.webhookId);
    if (members) members.push(index);
    else byWebhook.set(input.webhookId, [index]);
  });
  const ctes: string[] = [];
  const parts: { index: number; id: string; select: string }[] = [];
  [...byWebhook.keys()].sort().forEach((webhookId, group) => {
    const members = byWebhook.get(webhookId)!;
    const budget = counterCte(inputs[members[0]!]!.rateLimit, members.length, group, param, now);
    if (budget) ctes.push(budget.cte);
    members.forEach((index, rank) => {
      const part = acceptingCtes(inputs[index]!, index, param, budget?.within(rank) ?? 'true');
      ctes.push(...part.ctes);
      parts.push({ index, id: part.id, select: `${part.select}, ${budget?.expire ?? 'NULL::bigint'} AS "expire"` });
    });
  });
  const rows = await sql<{ n: number; status: 'accepted' | 'duplicate' | null; runs: number; pending: number; queueFull: boolean; expire: string | number | null }>(
    `WITH ${ctes.join(',\n     ')}
     ${parts.map((part) => `SELECT ${part.index} AS "n", ${part.select}`).join('\n     UNION ALL ')}`,
    params,
  );
  const outcomes: AcceptOutcome[] = new Array(inputs.length);
  for (const part of parts) {
    const row = rows.find((candidate) => Number(candidate.n) === part.index);
    outcomes[part.index] = !row?.status
      ? { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((Number(row?.expire ?? now) - now) / 1000)) }
      : { limited: false, id: part.id, status: row.status, runs: row.runs, pending: row.pending, queueFull: row.status === 'accepted' && row.queueFull };
  }
  return outcomes;
}

/**
 * The delivery rate limit of one webhook's deliveries in a batch, counted
 * with rate-limit.ts's counterUpsert (the library's own upsert, on the
 * library's row, so the limiter and this statement share one count):
 * `take` points at once. `within(rank)` is the condition for the delivery
 * at that rank (0 first): the count after it is the count after the batch
 * minus those after it. Null when the webhook's budget is not folded (PGlite).
 */
function counterCte(budget: FoldedRateLimit | undefined, take: number, group: number, param: Param, now: number) {
  if (!budget) return null;
  const name = `counted_w${group}`;
  const cte = `${name} AS (
       ${counterUpsert(param(budget.key, 'varchar'), param(now + budget.durationMs, 'bigint'), param(now, 'bigint'), param(take, 'int'))}
     )`;
  const points = param(budget.points, 'int');
  return {
    cte,
    within: (rank: number) => `(SELECT "points" - ${take - 1 - rank} <= ${points} FROM ${name})`,
    expire: `(SELECT "expire" FROM ${name})`,
  };
}

/** The columns of an accepted delivery's log entry, and their values (SQL expressions): one place to add a column. */
function deliveryColumns(input: AcceptInput, ids: { rowId: string; webhookId: string; deliveryId: string }, accepted: string, queueFull: string, param: Param): [string, string][] {
  return [
    ['id', ids.rowId],
    ['webhookId', ids.webhookId],
    ['deliveryId', ids.deliveryId],
    ['identitySource', param(input.identity.source, '"IdentitySource"')],
    ['status', `CASE WHEN ${accepted} THEN 'accepted'::"DeliveryStatus" ELSE 'duplicate'::"DeliveryStatus" END`],
    ['size', param(input.size, 'int')],
    ['receivedAt', 'now()'],
    ['body', `CASE WHEN ${accepted} THEN ${param(input.body, 'text')} ELSE NULL END`],
    ['headers', `CASE WHEN ${accepted} THEN ${param(JSON.stringify(input.headers), 'jsonb')} ELSE NULL END`],
    ['signatureHeaders', `CASE WHEN ${accepted} THEN ${param(input.signatureHeaders ? JSON.stringify(input.signatureHeaders) : null, 'jsonb')} ELSE NULL END`],
    ['remoteAddress', param(input.remoteAddress, 'text')],
    ['eventType', param(input.eventType ?? null, 'text')],
    ['origin', param(input.origin ?? null, 'text')],
    [
      'detail',
      `CASE WHEN NOT ${accepted} THEN 'identity already accepted'
                   WHEN ${queueFull} THEN ${param(queueFullDetail(input.runs.length, input.runQueueLimit), 'text')} END`,
    ],
  ];
}

type Param = (value: unknown, cast: string) => string;

/** One delivery's CTEs in an accepting statement (names suffixed with `n`), and its result columns; `allowed` is its rate-limit condition. */
function acceptingCtes(input: AcceptInput, n: number, param: Param, allowed: string): { ctes: string[]; select: string; id: string } {
  const id = newDeliveryRowId();
  const webhookId = param(input.webhookId, 'text');
  const deliveryId = param(input.identity.deliveryId, 'text');
  const rowId = param(id, 'text');
  const ctes: string[] = [];
  const name = (cte: string) => `${cte}_${n}`;

  ctes.push(`${name('claimed')} AS (
       INSERT INTO "DeliveryIdentity" ("webhookId", "deliveryId", "acceptedId", "createdAt")
       SELECT ${webhookId}, ${deliveryId}, ${rowId}, now() WHERE ${allowed}
       ON CONFLICT DO NOTHING
       RETURNING 1
     )`);
  let queueFull = 'false';
  if (input.runs.length) {
    const factoryId = param(input.factoryId, 'text');
    const limit = param(input.runQueueLimit, 'int');
    ctes.push(`${name('room')} AS (
       SELECT count(*) < ${limit} AS "ok"
         FROM (SELECT 1 FROM "Run" WHERE "status" = 'queued' AND "factoryId" = ${factoryId} LIMIT ${limit}) queued
     )`);
    queueFull = `NOT (SELECT "ok" FROM ${name('room')})`;
    ctes.push(`${name('runs')} AS (
       INSERT INTO "Run" ("id", "factoryId", "automationId", "deliveryId", "status", "prompt", "envelope", "traceparent", "controlKey", "controlKeyText", "createdAt")
       SELECT r."id", ${factoryId}, r."automationId", ${rowId}, CASE WHEN r."controlKey" IS NULL THEN 'queued'::"RunStatus" ELSE 'pending'::"RunStatus" END,
              a."prompt", r."envelope"::jsonb, ${param(input.traceparent ?? null, 'text')}, r."controlKey", r."controlKeyText", now()
         FROM unnest(${param(input.runs.map(newRunId), 'text[]')}, ${param(
           input.runs.map((r) => r.automationId),
           'text[]',
         )}, ${param(
           input.runs.map((r) => JSON.stringify(r.envelope)),
           'text[]',
         )}, ${param(
           input.runs.map((r) => r.group?.key ?? null),
           'text[]',
         )}, ${param(
           input.runs.map((r) => r.group?.keyText ?? null),
           'text[]',
         )}) AS r("id", "automationId", "envelope", "controlKey", "controlKeyText")
         JOIN "Automation" a ON a."id" = r."automationId" AND a."enabled"
        WHERE EXISTS (SELECT 1 FROM ${name('claimed')}) AND (SELECT "ok" FROM ${name('room')})
       RETURNING "controlKey"
     )`);
  }
  const accepted = `EXISTS (SELECT 1 FROM ${name('claimed')})`;
  const columns = deliveryColumns(input, { rowId, webhookId, deliveryId }, accepted, queueFull, param);
  ctes.push(`${name('delivery')} AS (
       INSERT INTO "Delivery" (${columns.map(([column]) => `"${column}"`).join(', ')})
       SELECT ${columns.map(([, value]) => value).join(',\n              ')}
        WHERE ${allowed}
       RETURNING "status"::text AS "status"
     )`);
  const select = `(SELECT "status" FROM ${name('delivery')}) AS "status",
            ${input.runs.length ? `(SELECT count(*) FROM ${name('runs')})::int` : '0'} AS "runs",
            ${input.runs.some((run) => run.group) ? `(SELECT count(*) FROM ${name('runs')} WHERE "controlKey" IS NOT NULL)::int` : '0'} AS "pending",
            ${queueFull} AS "queueFull"`;
  return { ctes, select, id };
}
