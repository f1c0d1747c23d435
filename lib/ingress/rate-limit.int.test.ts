import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { setDatabase } from '@/lib/platform/db';
import { env } from '@/lib/platform/env';
import { consume, counterUpsert, foldedDeliveryLimit, foldedUnauthenticatedLimit, getLimiters } from '@/lib/ingress/rate-limit';
import { createTestDatabase, type TestDatabase } from '@/tests/support/databases';

// The two paths of a budget on PostgreSQL count the same: the library's
// consume (rate-limiter-flexible) and the counter that the ingress's own
// statements update (counterUpsert, record.ts), taking turns on one key over
// one window, then across the end of a window.

describe.skipIf(!process.env.TEST_DATABASE_URL)('rate limits on PostgreSQL: the library and the folded counter', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    setDatabase(database);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await database?.drop();
  });

  const pool = () => database.adapter.pool!;

  /** One point through the folded path, as record.ts takes it: the count after it, and whether it was within the budget. */
  async function foldedTake(uid: string, now = Date.now()): Promise<{ points: number; allowed: boolean }> {
    const budget = foldedDeliveryLimit(uid)!;
    const result = await pool().query<{ points: number; allowed: boolean }>(
      `WITH counted AS (
       ${counterUpsert('$1::varchar', '$2::bigint', '$3::bigint')}
     )
     SELECT "points", "points" <= $4::int AS "allowed" FROM counted`,
      [budget.key, now + budget.durationMs, now, budget.points],
    );
    return result.rows[0]!;
  }

  /** One point through the library: the count after it, and whether it was within the budget. */
  async function libraryTake(uid: string): Promise<{ points: number; allowed: boolean }> {
    try {
      const res = await getLimiters().delivery.consume(uid);
      return { points: res.consumedPoints, allowed: true };
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return { points: error.consumedPoints, allowed: false };
    }
  }

  it('uses the library on PostgreSQL, and names the library’s own row', () => {
    const limiters = getLimiters();
    expect(limiters.delivery).toBeInstanceOf(RateLimiterPostgres);
    expect(foldedDeliveryLimit('wh_a')).toEqual({
      key: limiters.delivery.getKey('wh_a'),
      points: env().deliveryRateLimit,
      durationMs: (limiters.delivery as RateLimiterPostgres).duration * 1000,
    });
    expect(foldedUnauthenticatedLimit('wh_a')?.key).toBe(limiters.unauthenticated.getKey('wh_a'));
    expect(foldedUnauthenticatedLimit('wh_a')?.points).toBe((limiters.unauthenticated as RateLimiterPostgres).points);
  });

  it('taking turns on one key, both paths see one count and refuse from the same point', async () => {
    const uid = 'wh_turns';
    const limit = env().deliveryRateLimit;
    const seen: Array<{ points: number; allowed: boolean }> = [];
    for (let i = 0; i < limit + 6; i++) seen.push(i % 2 === 0 ? await libraryTake(uid) : await foldedTake(uid));
    expect(seen.map((s) => s.points)).toEqual(Array.from({ length: limit + 6 }, (_, i) => i + 1));
    expect(seen.map((s) => s.allowed)).toEqual(Array.from({ length: limit + 6 }, (_, i) => i < limit));
    // The library's own view of the row agrees, and so does consume()'s answer.
    expect((await getLimiters().delivery.get(uid))?.consumedPoints).toBe(limit + 6);
    expect(await consume(getLimiters().delivery, uid)).toMatchObject({ allowed: false });
  });

  it('both start again at 1 once the window has ended, whichever path comes first', async () => {
    for (const first of ['library', 'folded'] as const) {
      const uid = `wh_window_${first}`;
      const limit = env().deliveryRateLimit;
      for (let i = 0; i < limit + 1; i++) await libraryTake(uid);
      // End the window: the row's expire is now in the past.
      await pool().query(`UPDATE "rate_limits" SET "expire" = $2 WHERE "key" = $1`, [foldedDeliveryLimit(uid)!.key, Date.now() - 1]);
      const a = first === 'library' ? await libraryTake(uid) : await foldedTake(uid);
      const b = first === 'library' ? await foldedTake(uid) : await libraryTake(uid);
      expect([a, b]).toEqual([
        { points: 1, allowed: true },
        { points: 2, allowed: true },
      ]);
    }
  });
});
