import 'server-only';
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { getDatabase, type Database, type DbOrTx } from '@/lib/platform/db';
import { env, type Env } from '@/lib/platform/env';
import { checkCredentials, type PublicUser } from '@/lib/domain/users/service';
import { AppError } from '@/lib/platform/http/errors';
import { formatWait } from '@/lib/domain/auth/sign-in-messages';
import { countRefusal } from '@/lib/platform/metrics';

// Password sign-in with a throttle on failures, kept by rate-limiter-flexible
// the way the ingress keeps its budgets (lib/ingress/rate-limit.ts): in the
// shared rate_limits table on PostgreSQL, so every instance counts together,
// and in memory on embedded PGlite (one process).
//
// Two budgets of failed attempts within a window (default 15 minutes):
//   per account: 10 failures (keyed on the email as typed, whether or not an
//                account uses it, so the throttle itself reveals nothing);
//   per client address: 30 failures across all emails (password spraying).
// Every attempt takes a point from both budgets before the password is looked
// at, and the right password gives them back: counting first is what holds
// the budget against attempts sent at once. Once a budget is spent, every
// attempt it covers is refused without looking at the password, the right one
// included, until the window has passed: an attacker learns nothing from
// guesses made during a throttle. A successful sign-in clears the account's
// budget, not the address's.
//
// The address is the one lib/platform/entry/client-address.ts resolves. When it is
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

/**
 * Takes one point from every budget before the password is looked at. Each
 * take is one atomic statement (an upsert of the counter on PostgreSQL, a
 * synchronous step in memory), so attempts sent at once cannot all pass a
 * read made before any of them was counted: past the budget, the attempt is
 * refused and its password never checked. Returns the seconds to wait when a
 * budget is spent, else 0 with the budgets taken (to give back on success).
 */
async function take(list: Budget[]): Promise<number> {
  let wait = 0;
  for (const { limiter, key } of list) {
    try {
      await limiter.consume(key, 1);
    } catch (refusal) {
      if (refusal instanceof Error) throw refusal;
      const state = refusal as { msBeforeNext: number };
      wait = Math.max(wait, Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    }
  }
  return wait;
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
  const refused = await take(list);
  if (refused > 0) {
    countRefusal('sign_in');
    return { ok: false, reason: 'throttled', retryAfterSeconds: refused };
  }

  const check = await checkCredentials(input, options.db);
  if (check.outcome === 'wrong') {
    // The point taken stays spent. The attempt that spent a budget already says when to come back.
    const after = await throttledFor(list);
    return after > 0 ? { ok: false, reason: 'throttled', retryAfterSeconds: after } : { ok: false, reason: 'wrong' };
  }
  // The right password: its points are given back (and a sign-in clears the account's budget).
  const [account, ...rest] = list;
  if (check.outcome === 'ok') await account!.limiter.delete(account!.key);
  else await account!.limiter.reward(account!.key, 1);
  for (const { limiter, key } of rest) await limiter.reward(key, 1);
  return check.outcome === 'ok' ? { ok: true, user: check.user } : { ok: false, reason: 'disabled' };
}

/**
 * Runs `work`, which hashes a password for someone not signed in (first run,
 * sign-up, accepting an invitation with a new account), under the client
 * address's sign-in budget: a point is taken before (atomically, as for a
 * sign-in) and given back when the work succeeds, so only failed or refused
 * attempts count. A spent budget is a 429 before any hashing (argon2id, 19 MiB
 * each). Addresses that are "unknown" are not budgeted (see above).
 */
export async function withAddressBudget<T>(address: string, work: () => Promise<T>, limiters: SignInLimiters = getSignInLimiters()): Promise<T> {
  if (!address || address === 'unknown') return work();
  const budget = [{ limiter: limiters.address, key: address }];
  const refused = await take(budget);
  if (refused > 0) {
    countRefusal('sign_in');
    throw new AppError('rate_limited', `Too many attempts from your address. For your security, this form is paused: try again in ${formatWait(refused)}.`);
  }
  const result = await work();
  await limiters.address.reward(address, 1);
  return result;
}
