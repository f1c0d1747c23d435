import 'server-only';
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { getDatabase, type Database, type DbOrTx } from '@/lib/db';
import { env, type Env } from '@/lib/env';
import { checkCredentials, type PublicUser } from '@/lib/users/service';
import { countRefusal } from '@/lib/metrics';

// Password sign-in with a throttle on failures, kept by rate-limiter-flexible
// the way the ingress keeps its budgets (lib/ingress/rate-limit.ts): in the
// shared rate_limits table on PostgreSQL, so every instance counts together,
// and in memory on embedded PGlite (one process).
//
// Two budgets of failed attempts within a window (default 15 minutes):
//   per account: 10 failures (keyed on the email as typed, whether or not an
//                account uses it, so the throttle itself reveals nothing);
//   per client address: 30 failures across all emails (password spraying).
// Once a budget is spent, every attempt it covers is refused without looking
// at the password, the right one included, until the window has passed: an
// attacker learns nothing from guesses made during a throttle. A successful
// sign-in clears the account's budget, not the address's.
//
// The address is the one lib/http/client-address.ts resolves. When it is
// "unknown" (no trustworthy address: `next start` run by hand), the address
// budget is skipped: one budget shared by every visitor would let anyone lock
// everybody out of sign-in. The per-account budget still applies.

export type SignInLimiters = { account: RateLimiterAbstract; address: RateLimiterAbstract };

export function createSignInLimiters(database: Database, config: Env['signInThrottle'] = env().signInThrottle): SignInLimiters {
  const pool = database.adapter.pool;
  const duration = config.windowSeconds;
  if (pool) {
    const common = { storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, duration };
    return {
      account: new RateLimiterPostgres({ ...common, keyPrefix: 'signin-account', points: config.accountLimit }),
      address: new RateLimiterPostgres({ ...common, keyPrefix: 'signin-address', points: config.addressLimit }),
    };
  }
  return {
    account: new RateLimiterMemory({ keyPrefix: 'signin-account', points: config.accountLimit, duration }),
    address: new RateLimiterMemory({ keyPrefix: 'signin-address', points: config.addressLimit, duration }),
  };
}

// One set per process and database, on globalThis like the database itself.
const cacheKey = Symbol.for('tripline.signInLimiters');
const cache: WeakMap<Database, SignInLimiters> = ((globalThis as Record<symbol, unknown>)[cacheKey] ??= new WeakMap()) as WeakMap<
  Database,
  SignInLimiters
>;

export function getSignInLimiters(): SignInLimiters {
  const database = getDatabase();
  let limiters = cache.get(database);
  if (!limiters) {
    limiters = createSignInLimiters(database);
    cache.set(database, limiters);
  }
  return limiters;
}

/** The account key: a hash of the normalised email, so the rate_limits table holds no addresses. */
function accountKey(email: unknown): string {
  const normalised = typeof email === 'string' ? email.trim().toLowerCase() : '';
  return createHash('sha256').update(normalised, 'utf8').digest('hex').slice(0, 32);
}

type Budget = { limiter: RateLimiterAbstract; key: string };

function budgets(limiters: SignInLimiters, email: unknown, address: string): Budget[] {
  const list: Budget[] = [{ limiter: limiters.account, key: accountKey(email) }];
  if (address && address !== 'unknown') list.push({ limiter: limiters.address, key: address });
  return list;
}

/** Seconds until the longest spent budget refills, or 0 when none is spent. */
async function throttledFor(list: Budget[]): Promise<number> {
  let wait = 0;
  for (const { limiter, key } of list) {
    const state = await limiter.get(key);
    if (state && state.consumedPoints >= limiter.points) wait = Math.max(wait, Math.ceil(state.msBeforeNext / 1000));
  }
  return wait;
}

export type SignInOutcome =
  | { ok: true; user: PublicUser }
  | { ok: false; reason: 'wrong' | 'disabled' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * Signs in with an email and password from the client at `address`.
 * `wrong` never says whether the email has an account; `disabled` is only
 * answered to someone who gave the right password.
 */
export async function signInWithPassword(
  input: { email: unknown; password: unknown; address: string },
  options: { db?: DbOrTx; limiters?: SignInLimiters } = {},
): Promise<SignInOutcome> {
  const list = budgets(options.limiters ?? getSignInLimiters(), input.email, input.address);
  const before = await throttledFor(list);
  if (before > 0) {
    countRefusal('sign_in');
    return { ok: false, reason: 'throttled', retryAfterSeconds: before };
  }

  const check = await checkCredentials(input, options.db);
  if (check.outcome === 'ok') {
    await list[0]!.limiter.delete(list[0]!.key);
    return { ok: true, user: check.user };
  }
  if (check.outcome === 'disabled') return { ok: false, reason: 'disabled' };

  for (const { limiter, key } of list) await limiter.penalty(key, 1);
  // The attempt that spends a budget already says when to come back.
  const after = await throttledFor(list);
  return after > 0 ? { ok: false, reason: 'throttled', retryAfterSeconds: after } : { ok: false, reason: 'wrong' };
}
