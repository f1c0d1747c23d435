import 'server-only';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { serveBackups } from '@/lib/platform/db/dump';
import { acquireEmbeddedLock, type EmbeddedLock } from '@/lib/platform/db/embedded-lock';
import { appDir } from '@/lib/platform/app-dir';
import { asPGlite, EMBEDDED_TEMPLATE_FILE, ThreadedPGlite, type EmbeddedDatabase } from '@/lib/platform/db/pglite-thread';
import { serialTransactions } from '@/lib/platform/db/serial-transactions';
import { SESSION_TIME_ZONE_SQL } from '@/lib/platform/db/session';
import { log } from '@/lib/platform/log';
import { privateFolder } from '@/lib/platform/private-files';

// Chooses the database: PostgreSQL when a connection URL is given, otherwise
// the embedded PGlite database in the data folder. Both speak PostgreSQL, so
// one schema and one migration history serve both.

export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  // dataFolder: the data folder that holds it (TRIPLINE_DATA_DIR: its keys, its lock), made private with it.
  | { kind: 'embedded'; dataDir: string; dataFolder?: string }
  // In memory, for tests; `from`: a dump of a data folder to start from (tests/support/databases.ts).
  | { kind: 'memory'; from?: ArrayBuffer };

export type OpenedAdapter = {
  target: DatabaseTarget;
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** The PostgreSQL connection pool, shared with the rate limiter and the ingress's SQL (absent on PGlite). */
  pool?: pg.Pool;
  /** The embedded database, for the ingress's SQL (absent on PostgreSQL). */
  pglite?: EmbeddedDatabase;
  /** The data folder's lock, once held (embedded database in a folder only). */
  lock?: Promise<EmbeddedLock>;
  close: () => Promise<void>;
};

export function describeTarget(target: DatabaseTarget): string {
  switch (target.kind) {
    case 'postgres': {
      const url = new URL(target.url);
      return `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`;
    }
    case 'embedded':
      return `embedded PGlite in ${target.dataDir}`;
    case 'memory':
      return 'in-memory PGlite';
  }
}

export function targetFromEnv(config: { databaseUrl?: string; dataDir: string }): DatabaseTarget {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl }
    : { kind: 'embedded', dataDir: path.join(config.dataDir, 'pglite'), dataFolder: config.dataDir };
}

export function openAdapter(target: DatabaseTarget, options: { poolSize?: number } = {}): OpenedAdapter {
  if (target.kind === 'postgres') {
    // A database that does not answer fails a query in 5 s instead of hanging it (readiness, the ingress).
    const pool = new pg.Pool({
      connectionString: target.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      // TCP keep-alive on every connection: a database host that vanished without closing them
      // (a failover, a cut network) is found by the kernel's probes instead of never, and a
      // firewall does not drop a connection that sat idle.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // Each new connection's first statement (lib/platform/db/session.ts),
      // done before the pool hands the connection out: a connection that
      // cannot be set to UTC is closed and its query fails, rather than
      // writing timestamps in another zone.
      onConnect: (client) => client.query(SESSION_TIME_ZONE_SQL),
    });
    // An idle connection that the server closes (a restart, a failover) must
    // not crash the process: the pool replaces it on next use.
    pool.on('error', (error) => log('database').error({ err: { message: error.message } }, 'database connection lost'));
    // A transaction's statements go to its connection one at a time (serial-transactions.ts).
    const factory = serialTransactions(new PrismaPg(pool));
    return { target, factory, pool, close: () => pool.end() };
  }
  if (target.kind === 'memory') {
    // Tests: the same client on its own thread as the embedded database, without a folder.
    const client = new ThreadedPGlite(undefined, { from: target.from });
    return { target, factory: new PrismaPGlite(asPGlite(client)), pglite: client, close: () => client.close() };
  }
  // PGlite is a single connection: a second process opening the same folder
  // would corrupt it, so the folder's lock (see embedded-lock.ts) keeps it to
  // one. Taking it is asynchronous, and openAdapter is not (the process-wide
  // database opens on first use), so the database opens once the lock is
  // held, before it touches a file of the folder. A busy folder fails the
  // first query with EmbeddedDatabaseBusyError. The database runs on a
  // thread of its own (pglite-thread.ts). The database's folder and the data
  // folder around it are the user's alone, also when they were created before
  // that rule (private-files.ts).
  if (target.dataFolder) privateFolder(target.dataFolder);
  privateFolder(target.dataDir);
  const lock = acquireEmbeddedLock(target.dataDir);
  // Whoever queries first sees the failure; this only keeps it from being an unhandled rejection.
  lock.catch(() => {});
  const client = new ThreadedPGlite(target.dataDir, { before: lock, template: path.resolve(/*turbopackIgnore: true*/ appDir(), EMBEDDED_TEMPLATE_FILE) });
  // `tripline backup` asks the process that holds the folder for a copy.
  lock.then((held) => serveBackups(held, client), () => {});
  return {
    target,
    factory: new PrismaPGlite(asPGlite(client)),
    pglite: client,
    lock,
    close: async () => {
      let held: EmbeddedLock;
      try {
        held = await lock;
      } catch {
        return; // never opened
      }
      try {
        await client.close();
      } finally {
        held.release();
      }
    },
  };
}
