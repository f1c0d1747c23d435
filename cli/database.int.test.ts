import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '@/lib/platform/db';
import type { DatabaseTarget } from '@/lib/platform/db/adapter';
import { migratedPglite, testDatabaseKinds } from '@/tests/support/databases';
import { CLI_TRANSACTION_LIMITS, openCliDatabase } from './database';

// The CLI's interactive transactions (every command opens its database with
// withDatabase, through openCliDatabase) may wait for the connection and run
// longer than Prisma's defaults: seeding or `tripline setup` on a machine
// under extreme load failed with "Transaction is closed" at 5 s. The server
// keeps the defaults; each test shows them failing the same work first.

/** Prisma's limits when a client sets none (PrismaClientOptions.transactionOptions: maxWait, timeout). */
const PRISMA_MAX_WAIT_MS = 2_000;
const PRISMA_TIMEOUT_MS = 5_000;
/** How far past a default the work goes: enough to cross it on any machine; the verdict does not depend on speed. */
const PAST = 1_000;

// A PGlite starts from the tests' migrated dump (tests/support/databases.ts), not from its own initdb.
const dump = testDatabaseKinds().includes('pglite') ? await migratedPglite() : undefined;
const targetOf = (kind: string): DatabaseTarget => (kind === 'pglite' ? { kind: 'memory', from: dump } : { kind: 'postgres', url: process.env.TEST_DATABASE_URL! });

/** A database opened by `open`, with a first statement done: a new PGlite's initdb (seconds, a minute on a busy machine) is not part of what is timed. */
async function opened(open: () => Database): Promise<Database> {
  const database = open();
  await database.prisma.$queryRawUnsafe('SELECT 1');
  return database;
}

/** A transaction of two statements with `ms` between them. */
const slowTransaction = (database: Database, ms: number) =>
  database.prisma.$transaction(async (tx) => {
    await tx.$queryRawUnsafe('SELECT 1');
    await sleep(ms);
    return tx.$queryRawUnsafe<{ two: number }[]>('SELECT 2 AS two');
  });

/** Two transactions on the database's one connection: the second waits for the first, which lasts `ms`. */
async function twoOnOneConnection(database: Database, ms: number) {
  let started!: () => void;
  const holding = new Promise<void>((resolve) => (started = resolve));
  const first = database.prisma.$transaction(async (tx) => {
    await tx.$queryRawUnsafe('SELECT 1');
    started();
    await sleep(ms);
  });
  // Once the first holds the connection (or has failed, which the caller sees).
  await Promise.race([holding, first.catch(() => {})]);
  const second = database.prisma.$transaction(async (tx) => tx.$queryRawUnsafe<{ three: number }[]>('SELECT 3 AS three'));
  return Promise.allSettled([first, second]);
}

describe.each(testDatabaseKinds())('the CLI database on %s', (kind) => {
  it('sets limits well past the defaults', () => {
    expect(CLI_TRANSACTION_LIMITS.timeout).toBeGreaterThan(PRISMA_TIMEOUT_MS + PAST);
    expect(CLI_TRANSACTION_LIMITS.maxWait).toBeGreaterThan(PRISMA_MAX_WAIT_MS + PAST);
  });

  it('a transaction may last past Prisma’s 5 s, which ends the same transaction of a server', async () => {
    const server = await opened(() => openDatabase(targetOf(kind)));
    try {
      await expect(slowTransaction(server, PRISMA_TIMEOUT_MS + PAST)).rejects.toThrow(/Transaction/);
    } finally {
      await server.close();
    }
    const cli = await opened(() => openCliDatabase(targetOf(kind)));
    try {
      await expect(slowTransaction(cli, PRISMA_TIMEOUT_MS + PAST)).resolves.toEqual([{ two: 2 }]);
    } finally {
      await cli.close();
    }
  });

  it('a transaction may wait past Prisma’s 2 s for the connection another holds', async () => {
    // One connection: PGlite's own, or a pool of one on PostgreSQL (whose wait for a connection ends at 5 s, past the hold).
    const server = await opened(() => openDatabase(targetOf(kind), { poolSize: 1 }));
    try {
      const [first, second] = await twoOnOneConnection(server, PRISMA_MAX_WAIT_MS + PAST);
      expect(first.status).toBe('fulfilled');
      expect(second).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/Transaction|transaction/) }) });
    } finally {
      await server.close();
    }
    const cli = await opened(() => openCliDatabase(targetOf(kind), { poolSize: 1 }));
    try {
      const [first, second] = await twoOnOneConnection(cli, PRISMA_MAX_WAIT_MS + PAST);
      expect(first.status).toBe('fulfilled');
      expect(second).toEqual({ status: 'fulfilled', value: [{ three: 3 }] });
    } finally {
      await cli.close();
    }
  });
});
