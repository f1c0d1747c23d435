import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setDatabase } from '@/lib/platform/db';
import { verifyKeyFingerprints } from '@/lib/platform/db/prepare';
import { scrape } from '@/lib/platform/metrics-endpoint';
import { readiness } from '@/lib/server/readiness';
import { setPhase } from '@/lib/server/lifecycle';
import { createTestDatabase, testDatabaseKinds, type TestDatabase } from '@/tests/support/databases';
import { budget } from '@/scripts/speed.mjs';

// /readyz and /metrics read the shared database on every probe and scrape. A table locked by
// another session (a migration's ALTER TABLE, say) must not hold their queries, and with them
// the pool's connections that the ingress uses, for as long as the lock is held.

const token = vi.hoisted(() => {
  process.env.TRIPLINE_METRICS_TOKEN = 'probe-bounds-metrics-token';
  return process.env.TRIPLINE_METRICS_TOKEN;
});

describe.each(testDatabaseKinds().filter((kind) => kind === 'postgres'))('probes against a locked table on %s', (kind) => {
  let database: TestDatabase;
  let holder: pg.Client;
  const busy = () => database.adapter.pool!.totalCount - database.adapter.pool!.idleCount;
  /** Polls until no pool connection is busy; false when the budget runs out first. */
  const poolSettles = async () => {
    const until = performance.now() + budget(10_000);
    while (busy() > 0) {
      if (performance.now() > until) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
  };
  const holdLock = async (table: string) => {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    await verifyKeyFingerprints(database);
    setDatabase(database);
    setPhase('ready');
    holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    setDatabase(undefined);
    await database?.drop();
  });

  it('a scrape while "Run" is locked answers, its queue gauges NaN rather than the last values, and keeps no connection', async () => {
    const before = await (await scrape(new Request('http://tripline.test/metrics', { headers: { authorization: `Bearer ${token}` } }))).text();
    expect(before).toMatch(/^tripline_run_queue_depth 0$/m);
    await holdLock('Run');
    try {
      const response = await scrape(new Request('http://tripline.test/metrics', { headers: { authorization: `Bearer ${token}` } }));
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).toMatch(/^tripline_run_queue_depth nan$/im);
      expect(text).toMatch(/^tripline_run_queue_oldest_age_seconds nan$/im);
      expect(await poolSettles()).toBe(true);
    } finally {
      await holder.query('ROLLBACK');
    }
    const after = await (await scrape(new Request('http://tripline.test/metrics', { headers: { authorization: `Bearer ${token}` } }))).text();
    expect(after).toMatch(/^tripline_run_queue_depth 0$/m);
  }, budget(30_000));

  it('a readiness probe while the migrations table is locked is not ready, and its query does not hold a connection', async () => {
    expect(await readiness()).toEqual({ ready: true });
    await holdLock('_prisma_migrations');
    try {
      expect(await readiness()).toEqual({ ready: false, reason: 'database unavailable' });
      // Before: the probe stopped waiting at 2 s, but its query waited on the lock, holding its connection.
      expect(await poolSettles()).toBe(true);
    } finally {
      await holder.query('ROLLBACK');
    }
    expect(await readiness()).toEqual({ ready: true });
  }, budget(30_000));
});
