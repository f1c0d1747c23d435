import 'server-only';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { acquireEmbeddedLock } from '@/lib/db/embedded-lock';

// Chooses the database: PostgreSQL when a connection URL is given, otherwise
// the embedded PGlite database in the data folder. Both speak PostgreSQL, so
// one schema and one migration history serve both.

export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  | { kind: 'embedded'; dataDir: string }
  | { kind: 'memory' };

export type OpenedAdapter = {
  target: DatabaseTarget;
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** The PostgreSQL connection pool, shared with the rate limiter and the ingress's SQL (absent on PGlite). */
  pool?: pg.Pool;
  /** The embedded database, for the ingress's SQL (absent on PostgreSQL). */
  pglite?: PGlite;
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
    : { kind: 'embedded', dataDir: path.join(config.dataDir, 'pglite') };
}

export function openAdapter(target: DatabaseTarget, options: { poolSize?: number } = {}): OpenedAdapter {
  if (target.kind === 'postgres') {
    // A database that does not answer fails a query in 5 s instead of hanging it (readiness, the ingress).
    const pool = new pg.Pool({ connectionString: target.url, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 });
    // An idle connection that the server closes (a restart, a failover) must
    // not crash the process: the pool replaces it on next use.
    pool.on('error', (error) => console.error(`[tripline] database connection lost: ${error.message}`));
    const factory = new PrismaPg(pool);
    return { target, factory, pool, close: () => pool.end() };
  }
  if (target.kind === 'memory') {
    const client = new PGlite();
    return { target, factory: new PrismaPGlite(client), pglite: client, close: () => client.close() };
  }
  // PGlite is a single connection inside this process: a second process
  // opening the same folder would corrupt it, so a lock file keeps it to one.
  fs.mkdirSync(target.dataDir, { recursive: true });
  const releaseLock = acquireEmbeddedLock(target.dataDir);
  const client = new PGlite(target.dataDir);
  return {
    target,
    factory: new PrismaPGlite(client),
    pglite: client,
    close: async () => {
      try {
        await client.close();
      } finally {
        releaseLock();
      }
    },
  };
}
