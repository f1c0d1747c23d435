import 'server-only';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { getDatabase, type Database } from '@/lib/db';
import { env } from '@/lib/env';
import { RATE_WINDOW_SECONDS } from '@/lib/ingress/limits';
import type { FoldedRateLimit } from '@/lib/ingress/record';

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

export type Limiters = { delivery: RateLimiterAbstract; authFailure: RateLimiterAbstract; unauthenticated: RateLimiterAbstract };

function createLimiters(database: Database): Limiters {
  const { deliveryRateLimit, authFailureLimit, unauthenticatedLogLimit } = env();
  const pool = database.adapter.pool;
  if (pool) {
    const common = { storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, duration: RATE_WINDOW_SECONDS };
    return {
      delivery: new RateLimiterPostgres({ ...common, keyPrefix: 'delivery', points: deliveryRateLimit }),
      authFailure: new RateLimiterPostgres({ ...common, keyPrefix: 'authfail', points: authFailureLimit }),
      unauthenticated: new RateLimiterPostgres({ ...common, keyPrefix: 'unauthlog', points: unauthenticatedLogLimit }),
    };
  }
  return {
    delivery: new RateLimiterMemory({ keyPrefix: 'delivery', points: deliveryRateLimit, duration: RATE_WINDOW_SECONDS }),
    authFailure: new RateLimiterMemory({ keyPrefix: 'authfail', points: authFailureLimit, duration: RATE_WINDOW_SECONDS }),
    unauthenticated: new RateLimiterMemory({ keyPrefix: 'unauthlog', points: unauthenticatedLogLimit, duration: RATE_WINDOW_SECONDS }),
  };
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

/**
 * On PostgreSQL, the delivery budget as a counter the accepting statement
 * updates itself (record.ts), saving a round trip and a commit per delivery;
 * null on PGlite, where the in-memory limiter is consulted instead.
 */
export function foldedDeliveryLimit(uid: string): FoldedRateLimit | null {
  return folded(getLimiters().delivery, uid);
}

/** On PostgreSQL, the budget of unauthenticated entries as a counter the writing statement updates itself; null on PGlite. */
export function foldedUnauthenticatedLimit(uid: string): FoldedRateLimit | null {
  return folded(getLimiters().unauthenticated, uid);
}

function folded(limiter: RateLimiterAbstract, uid: string): FoldedRateLimit | null {
  if (!(limiter instanceof RateLimiterPostgres)) return null;
  return { key: limiter.getKey(uid), points: limiter.points, durationMs: limiter.duration * 1000 };
}
