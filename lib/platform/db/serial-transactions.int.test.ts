import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '@/tests/support/databases';

// Statements that Prisma or the app send side by side inside one interactive
// transaction reach its PostgreSQL connection one at a time
// (serial-transactions.ts): pg 9 refuses a query on a busy connection.

/** Counts, on every connection of the pool, how many queries are in flight at once. */
function watchConnections(pool: pg.Pool) {
  const seen = { inFlight: 0, most: 0 };
  const watch = (client: pg.PoolClient) => {
    const marked = client as pg.PoolClient & { watched?: boolean };
    if (marked.watched) return;
    marked.watched = true;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (!(result instanceof Promise)) return result;
      seen.inFlight += 1;
      seen.most = Math.max(seen.most, seen.inFlight);
      return result.finally(() => (seen.inFlight -= 1));
    };
  };
  pool.on('acquire', watch);
  return seen;
}

/** Prisma's default limit on an interactive transaction (the app sets none). */
const PRISMA_TRANSACTION_TIMEOUT_MS = 5_000;

/** Three reads at once inside one transaction, as `Promise.all` in a service would send them. */
async function readsSideBySide(client: PrismaClient) {
  return client.$transaction(async (tx) => Promise.all([tx.user.count(), tx.factory.findMany({ include: { memberships: true, webhooks: true } }), tx.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one')]));
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('transactions on PostgreSQL', () => {
  let database: TestDatabase;
  let seen: { inFlight: number; most: number };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    seen = watchConnections(database.adapter.pool!);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('send the statements that Prisma runs side by side one at a time', async () => {
    seen.most = 0;
    const [users, factories, [row]] = await readsSideBySide(database.prisma);
    expect(users).toBe(0);
    expect(factories).toEqual([]);
    expect(row).toEqual({ one: 1 });
    expect(seen.most).toBe(1);
  });

  it("without the wrapper, the same transaction has several queries on its connection at once (pg's deprecated queue)", async () => {
    // The premise of the wrapper, so that the test above can fail. pg's
    // warning is kept out of the test's output.
    const client = new PrismaClient({ adapter: new PrismaPg(database.adapter.pool!) });
    const quiet = process.noDeprecation;
    process.noDeprecation = true;
    try {
      seen.most = 0;
      await readsSideBySide(client);
      expect(seen.most).toBeGreaterThan(1);
    } finally {
      process.noDeprecation = quiet;
      await client.$disconnect();
    }
  });

  it('a failing statement fails the transaction without holding up the ones queued behind it', async () => {
    const started = Date.now();
    await expect(
      database.prisma.$transaction(async (tx) => Promise.all([tx.$queryRawUnsafe('SELECT 1 / 0'), tx.user.count(), tx.factory.count()])),
    ).rejects.toThrow(/division by zero/);
    // The connection is usable again: the transaction was rolled back.
    await expect(database.prisma.$transaction(async (tx) => tx.user.count())).resolves.toBe(0);
    // A statement held up behind the failed one would wait for Prisma's transaction timeout to end the transaction.
    const ms = Date.now() - started;
    console.log(`the failed transaction and the next one took ${ms} ms (Prisma's transaction timeout: ${PRISMA_TRANSACTION_TIMEOUT_MS} ms)`);
    expect(ms).toBeLessThan(PRISMA_TRANSACTION_TIMEOUT_MS);
  });

  it('writes sent side by side are all committed, and a rollback undoes them all', async () => {
    const keys = ['serial-a', 'serial-b', 'serial-c'];
    await database.prisma.$transaction(async (tx) => Promise.all(keys.map((key) => tx.instanceSetting.create({ data: { key, value: key } }))));
    await expect(database.prisma.instanceSetting.count({ where: { key: { in: keys } } })).resolves.toBe(3);
    await expect(
      database.prisma.$transaction(async (tx) => {
        await Promise.all(keys.map((key) => tx.instanceSetting.update({ where: { key }, data: { value: 'changed' } })));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(database.prisma.instanceSetting.count({ where: { value: 'changed' } })).resolves.toBe(0);
    expect(seen.inFlight).toBe(0);
  });
});
