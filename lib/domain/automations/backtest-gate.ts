import 'server-only';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { getDatabase, type Database } from '@/lib/platform/db';
import { backtestTrigger, type BacktestResult } from '@/lib/domain/automations/test-filter';
import type { TriggerInput } from '@/lib/domain/automations/schemas';
import { AppError } from '@/lib/platform/http/errors';
import { countRefusal } from '@/lib/platform/metrics';

// Backtest reads a webhook's whole retained log (up to two pooled
// connections for its SQL, and the bodies without a jsonb copy through the
// TypeScript evaluator), and any member, viewers included, may run it. One
// gate, runBacktest(), the only way the dashboard's action and the API's route
// run a Backtest, bounds what callers can make the database do:
//   - at most INSTANCE_LIMIT Backtests at once in this process (2, so at most
//     4 of the pool's 10 connections), and one per factory: the ingress and
//     every other request always find connections free;
//   - a rate budget per factory (RATE_LIMIT a minute), shared by every
//     instance on PostgreSQL (the rate_limits table), in memory on PGlite.
// Past either, 429 with Retry-After: a Backtest is interactive, and waiting in
// a queue would hold the caller's request open for as long as the queue.

export const BACKTEST_INSTANCE_LIMIT = 2;
export const BACKTEST_FACTORY_LIMIT = 1;
export const BACKTEST_RATE_LIMIT = 30;

const running = { total: 0, byFactory: new Map<string, number>() };

const limitersKey = Symbol.for('tripline.backtestLimiters');
const limiters: WeakMap<Database, RateLimiterAbstract> = ((globalThis as Record<symbol, unknown>)[limitersKey] ??= new WeakMap()) as WeakMap<
  Database,
  RateLimiterAbstract
>;

function rateLimiter(): RateLimiterAbstract {
  const database = getDatabase();
  let limiter = limiters.get(database);
  if (!limiter) {
    const pool = database.adapter.pool;
    const options = { keyPrefix: 'backtest-factory', points: BACKTEST_RATE_LIMIT, duration: 60 };
    limiter = pool
      ? new RateLimiterPostgres({ ...options, storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true })
      : new RateLimiterMemory(options);
    limiters.set(database, limiter);
  }
  return limiter;
}

const busy = (seconds: number, message: string) => {
  countRefusal('backtest');
  return new AppError('rate_limited', message, undefined, seconds);
};

/** Runs `work` (one Backtest of the factory) within the gate, or throws 429. */
export async function withBacktestGate<T>(factoryId: string, work: () => Promise<T>): Promise<T> {
  if (running.total >= BACKTEST_INSTANCE_LIMIT || (running.byFactory.get(factoryId) ?? 0) >= BACKTEST_FACTORY_LIMIT) {
    throw busy(2, 'Another Backtest is running. Try again in a few seconds.');
  }
  // The slot is taken before the first await, so two calls cannot both pass the check above.
  running.total += 1;
  running.byFactory.set(factoryId, (running.byFactory.get(factoryId) ?? 0) + 1);
  try {
    try {
      await rateLimiter().consume(factoryId, 1);
    } catch (refusal) {
      if (refusal instanceof Error) throw refusal;
      const seconds = Math.max(1, Math.ceil((refusal as { msBeforeNext: number }).msBeforeNext / 1000));
      throw busy(seconds, `This factory ran ${BACKTEST_RATE_LIMIT} Backtests in the last minute, the most allowed. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`);
    }
    return await work();
  } finally {
    running.total -= 1;
    const left = (running.byFactory.get(factoryId) ?? 1) - 1;
    if (left > 0) running.byFactory.set(factoryId, left);
    else running.byFactory.delete(factoryId);
  }
}

/** A Backtest as the dashboard and the API run it: within the gate. */
export function runBacktest(factoryId: string, input: { trigger: TriggerInput; limit?: number }): Promise<BacktestResult> {
  return withBacktestGate(factoryId, () => backtestTrigger(factoryId, input));
}
