import 'server-only';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { getDatabase, prisma, type Database } from '@/lib/platform/db';
import { consume } from '@/lib/ingress/rate-limit';
import { countRefusal } from '@/lib/platform/metrics';
import { AppError } from '@/lib/platform/http/errors';

// Two limits on repository fetches, which cost the server a git process and
// a connection to a host someone else chose:
//   - one sync (fetch, and apply) at a time per factory: an in-process guard,
//     and a lease on the factory row that every instance on the database
//     sees (a crashed instance's lease runs out after LEASE_MS);
//   - REPOSITORY_CHECKS_PER_MINUTE fetches per user (Check, Apply, Sync now;
//     dashboard and API alike), counted in the shared rate_limits table on
//     PostgreSQL and in memory on embedded PGlite (a single process).

export const REPOSITORY_CHECKS_PER_MINUTE = 10;
const LEASE_MS = 5 * 60_000;

export const syncRunning = () =>
  new AppError('conflict', 'A sync of this factory’s repository is already running. Try again when it has finished.');

const runningKey = Symbol.for('tripline.repositorySyncs');
const running: Set<string> = ((globalThis as Record<symbol, unknown>)[runningKey] ??= new Set<string>()) as Set<string>;

/** Runs `job` as the factory's only repository sync, or throws "a sync is already running" (409). */
export async function withRepositorySyncLock<T>(factoryId: string, job: () => Promise<T>): Promise<T> {
  if (running.has(factoryId)) throw syncRunning();
  running.add(factoryId);
  try {
    const now = new Date();
    const until = new Date(now.getTime() + LEASE_MS);
    // One UPDATE: of two instances racing, the second re-reads the row after the first commits and finds the lease taken.
    const { count } = await prisma.factory.updateMany({
      where: { id: factoryId, OR: [{ repoSyncLeaseUntil: null }, { repoSyncLeaseUntil: { lt: now } }] },
      data: { repoSyncLeaseUntil: until },
    });
    if (count === 0) {
      await prisma.factory.findUniqueOrThrow({ where: { id: factoryId }, select: { id: true } });
      throw syncRunning();
    }
    try {
      return await job();
    } finally {
      await prisma.factory.updateMany({ where: { id: factoryId, repoSyncLeaseUntil: until }, data: { repoSyncLeaseUntil: null } });
    }
  } finally {
    running.delete(factoryId);
  }
}

const limiterKey = Symbol.for('tripline.repositoryCheckLimiter');
const limiters: WeakMap<Database, RateLimiterAbstract> = ((globalThis as Record<symbol, unknown>)[limiterKey] ??= new WeakMap()) as WeakMap<
  Database,
  RateLimiterAbstract
>;

function checkLimiter(): RateLimiterAbstract {
  const database = getDatabase();
  let limiter = limiters.get(database);
  if (!limiter) {
    const options = { keyPrefix: 'repocheck', points: REPOSITORY_CHECKS_PER_MINUTE, duration: 60 };
    const pool = database.adapter.pool;
    limiter = pool
      ? new RateLimiterPostgres({ ...options, storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true })
      : new RateLimiterMemory(options);
    limiters.set(database, limiter);
  }
  return limiter;
}

/** Takes one of the user's repository checks for this minute, or throws 429 saying when to try again. */
export async function consumeRepositoryCheck(userId: string): Promise<void> {
  const result = await consume(checkLimiter(), userId);
  if (!result.allowed) {
    countRefusal('repository_check');
    throw new AppError(
      'rate_limited',
      `Too many repository checks: at most ${REPOSITORY_CHECKS_PER_MINUTE} a minute. Try again in ${result.retryAfterSeconds} seconds.`,
    );
  }
}
