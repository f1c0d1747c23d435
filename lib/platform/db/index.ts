import 'server-only';
import { env } from '@/lib/platform/env';
import { openAdapter, targetFromEnv, type DatabaseTarget, type OpenedAdapter } from '@/lib/platform/db/adapter';
import { PrismaClient } from '@/lib/generated/prisma/client';
import type { Prisma } from '@/lib/generated/prisma/client';

// The data layer: one Prisma client per process, on PostgreSQL or embedded
// PGlite (see adapter.ts). Everything else imports `prisma` from here and
// services take `db = prisma` so callers can pass a transaction instead.

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;
export type DbOrTx = Db | Tx;

export type Database = { prisma: PrismaClient; adapter: OpenedAdapter; close: () => Promise<void>; closed: boolean };

/** Limits of every interactive transaction of a client, in ms (Prisma's defaults: maxWait 2,000, timeout 5,000). */
export type TransactionLimits = { maxWait: number; timeout: number };

export function openDatabase(target: DatabaseTarget, options: { poolSize?: number; transactionOptions?: TransactionLimits } = {}): Database {
  const adapter = openAdapter(target, options);
  const client = new PrismaClient({ adapter: adapter.factory, ...(options.transactionOptions ? { transactionOptions: options.transactionOptions } : {}) });
  const database: Database = {
    prisma: client,
    adapter,
    closed: false,
    close: async () => {
      database.closed = true;
      await client.$disconnect();
      await adapter.close();
    },
  };
  return database;
}

// Next.js may evaluate this module in more than one bundle of the same
// process; the instance lives on globalThis so there is only ever one (which
// PGlite, a single in-process connection, requires).
const globalKey = Symbol.for('tripline.database');
type GlobalWithDb = typeof globalThis & { [globalKey]?: Database };

export function getDatabase(): Database {
  const holder = globalThis as GlobalWithDb;
  holder[globalKey] ??= openDatabase(targetFromEnv(env()));
  return holder[globalKey];
}

/** The process-wide database if one is open, without opening it. */
export function peekDatabase(): Database | undefined {
  return (globalThis as GlobalWithDb)[globalKey];
}

/** Replaces the process-wide database (tests and the CLI pick their own). */
export function setDatabase(database: Database | undefined): void {
  (globalThis as GlobalWithDb)[globalKey] = database;
}

// Opened on first use, not at import: `next build` imports route modules and
// must not open the database.
export const prisma: PrismaClient = new Proxy({} as PrismaClient, {
  get(_target, property) {
    const client = getDatabase().prisma;
    const value = Reflect.get(client, property, client);
    return typeof value === 'function' ? value.bind(client) : value;
  },
});
