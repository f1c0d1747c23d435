import 'server-only';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { getDatabase, type Database } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { RATE_WINDOW_SECONDS } from '@/lib/ingress/limits';

// Three budgets, all per minute, kept by rate-limiter-flexible:
//   delivery:        authenticated deliveries per webhook (TRIPLINE_DELIVERY_RATE_LIMIT, default 60);
//   auth failure:    failed authentication attempts per webhook and client address
//                    (TRIPLINE_AUTH_FAILURE_LIMIT, default 20);
//   unauthenticated: log entries per webhook written for requests without valid
//                    credentials: too large, rejected auth, handshakes, challenges
//                    (TRIPLINE_UNAUTHENTICATED_LOG_LIMIT, default 60). The client
//                    address does not matter to it, so no number of addresses
//                    can write more than this into one webhook's log.
// On PostgreSQL the counters live in the shared rate_limits table, so every
// instance behind a load balancer sees the same counts; embedded PGlite is a
// single process, where memory is the shared state.
//
// The failure budget only ever turns a failing request's 401 into a 429: a
// request with valid credentials is never refused by it, so an attacker
// cannot lock the legitimate sender out by failing on purpose.

// Two ways to count, one count. The library's limiters count with their own
// statement. The two hottest writes (the accepting statement and the entry
// of an unauthenticated request, record.ts) instead count inside their own
// statement, saving a round trip and a commit per request, with
// counterUpsert below: the library's upsert (rate-limiter-flexible's
// RateLimiterPostgres._upsert, one point at a time), on the library's row,
// named by budgetKey. This module owns both the key format and the
// budgets' sizes, so neither path reads the other's internals;
// rate-limit.int.test.ts drives both over one window on PostgreSQL and
// checks that they count the same.

type BudgetName = 'delivery' | 'authFailure' | 'unauthenticated';
export type Limiters = Record<BudgetName, RateLimiterAbstract>;

/** A budget: `points` per RATE_WINDOW_SECONDS for each key, under `prefix` in rate_limits. */
type Budget = { prefix: string; points: number };

function budgets(): Record<BudgetName, Budget> {
  const { deliveryRateLimit, authFailureLimit, unauthenticatedLogLimit } = env();
  return {
    delivery: { prefix: 'delivery', points: deliveryRateLimit },
    authFailure: { prefix: 'authfail', points: authFailureLimit },
    unauthenticated: { prefix: 'unauthlog', points: unauthenticatedLogLimit },
  };
}

/**
 * The key of a budget's counter row: "<prefix>:<key>", which is how
 * rate-limiter-flexible names its rows (getKey: keyPrefix + ':' + key), so
 * the library and counterUpsert update the same row.
 */
export function budgetKey(prefix: string, key: string): string {
  return `${prefix}:${key}`;
}

function createLimiters(database: Database): Limiters {
  const pool = database.adapter.pool;
  const limiter = ({ prefix, points }: Budget): RateLimiterAbstract =>
    pool
      ? new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, keyPrefix: prefix, points, duration: RATE_WINDOW_SECONDS })
      : new RateLimiterMemory({ keyPrefix: prefix, points, duration: RATE_WINDOW_SECONDS });
  const { delivery, authFailure, unauthenticated } = budgets();
  return { delivery: limiter(delivery), authFailure: limiter(authFailure), unauthenticated: limiter(unauthenticated) };
}

// On globalThis, like the database: one set of limiters per process however
// many bundles include this module.
const cacheKey = Symbol.for('tripline.rateLimiters');
const cache: WeakMap<Database, Limiters> = ((globalThis as Record<symbol, unknown>)[cacheKey] ??= new WeakMap()) as WeakMap<Database, Limiters>;

export function getLimiters(): Limiters {
  const database = getDatabase();
  let limiters = cache.get(database);
  if (!limiters) {
    limiters = createLimiters(database);
    cache.set(database, limiters);
  }
  return limiters;
}

/**
 * The limiters if this process created them already, without creating them:
 * for readers outside the ingress (the health job, lib/domain/health/rate-limits.ts),
 * which may run in another bundle of the same process. Creating the limiters
 * there would give the ingress instances of that bundle's copy of the
 * library, whose refusals its `instanceof RateLimiterRes` would not recognise.
 */
export function existingLimiters(): Limiters | undefined {
  return cache.get(getDatabase());
}

export type Consumed = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Takes one point; when the budget is spent, how many whole seconds until it refills. */
export async function consume(limiter: RateLimiterAbstract, key: string): Promise<Consumed> {
  try {
    await limiter.consume(key);
    return { allowed: true };
  } catch (error) {
    if (error instanceof RateLimiterRes) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
    }
    throw error;
  }
}

/** A budget counted by a statement of record.ts itself, with counterUpsert (PostgreSQL only). */
export type FoldedRateLimit = { key: string; points: number; durationMs: number };

/**
 * On PostgreSQL, the delivery budget as a counter the accepting statement
 * updates itself (record.ts), saving a round trip and a commit per delivery;
 * null on PGlite, where the in-memory limiter is consulted instead.
 */
export function foldedDeliveryLimit(uid: string): FoldedRateLimit | null {
  return folded('delivery', uid);
}

/** On PostgreSQL, the budget of unauthenticated entries as a counter the writing statement updates itself; null on PGlite. */
export function foldedUnauthenticatedLimit(uid: string): FoldedRateLimit | null {
  return folded('unauthenticated', uid);
}

/** On PostgreSQL, the failed-authentication budget of a webhook and client address, counted by the writing statement; null on PGlite. */
export function foldedAuthFailureLimit(uid: string, address: string): FoldedRateLimit | null {
  return folded('authFailure', authFailureKey(uid, address));
}

/** The failed-authentication budget's key: the webhook and the trusted client address. */
export function authFailureKey(uid: string, address: string): string {
  return `${uid}:${address}`;
}

function folded(name: BudgetName, key: string): FoldedRateLimit | null {
  if (!(getLimiters()[name] instanceof RateLimiterPostgres)) return null;
  const { prefix, points } = budgets()[name];
  return { key: budgetKey(prefix, key), points, durationMs: RATE_WINDOW_SECONDS * 1000 };
}

/**
 * SQL that takes `take` points (default one) from a counter row, exactly as
 * the library's consume does: a row whose window has ended (expire <= at)
 * starts again at `take` with a new expire. Returns the row's "points" (the
 * count after the take) and "expire". The arguments are SQL expressions:
 * parameter references ($n::varchar, $n::bigint, ...) or literals; `when`,
 * a condition, takes nothing (and returns no row) when false.
 */
export function counterUpsert(key: string, expire: string, at: string, take = '1', when = 'true'): string {
  return `INSERT INTO "rate_limits" ("key", "points", "expire") SELECT ${key}, ${take}, ${expire} WHERE ${when}
       ON CONFLICT ("key") DO UPDATE SET
         "points" = CASE WHEN "rate_limits"."expire" <= ${at} THEN ${take} ELSE "rate_limits"."points" + ${take} END,
         "expire" = CASE WHEN "rate_limits"."expire" <= ${at} THEN ${expire} ELSE "rate_limits"."expire" END
       RETURNING "points", "expire"`;
}
