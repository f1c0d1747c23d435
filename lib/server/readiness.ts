import 'server-only';
import { peekDatabase } from '@/lib/platform/db';
import { databaseDiskFull, DISK_FULL_REPORT_MS } from '@/lib/platform/db/unavailable';
import { loadMigrationList } from '@/lib/platform/db/migrate';
import { keyFingerprints } from '@/lib/platform/db/prepare';
import { sqlWithin } from '@/lib/platform/db/sql';
import { errorFields, log } from '@/lib/platform/log';
import { isDraining, phase, phaseReason } from '@/lib/server/lifecycle';

// Readiness: may a load balancer send this instance traffic? Only when it
// has started, is not draining, its database answers and has room to write,
// every migration this build knows is applied, and its keys are the ones the
// database was set up with. Liveness (/healthz) asks none of this: a process that cannot reach
// its database should be taken out of rotation, not restarted.

const QUERY_TIMEOUT_MS = 2_000;

export type Readiness = { ready: true } | { ready: false; reason: string };

let knownMigrations: string[] | undefined;
function migrationsOfThisBuild(): string[] {
  knownMigrations ??= loadMigrationList().migrationDirectories.map((directory) => directory.path);
  return knownMigrations;
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${QUERY_TIMEOUT_MS / 1000} s`)), QUERY_TIMEOUT_MS);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export async function readiness(): Promise<Readiness> {
  if (isDraining()) return { ready: false, reason: 'shutting down' };
  const current = phase();
  if (current === 'failed') return { ready: false, reason: `failed to start: ${phaseReason() ?? 'see the server log'}` };
  if (current !== 'ready' || !peekDatabase()) return { ready: false, reason: 'starting' };
  // Reads still work on a full disk, so the queries below would pass: report it from the writes that failed.
  if (databaseDiskFull()) {
    return { ready: false, reason: `the database's disk is full: writes are refused until space is freed (reported until one succeeds, or ${DISK_FULL_REPORT_MS / 1000} s after the last refused one)` };
  }
  try {
    const applied = await withTimeout(
      sqlWithin<{ migration_name: string }>(QUERY_TIMEOUT_MS, `SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`),
      'the database',
    );
    const names = new Set(applied.map((row) => row.migration_name));
    const pending = migrationsOfThisBuild().filter((name) => !names.has(name));
    if (pending.length) return { ready: false, reason: `migrations not applied: ${pending.join(', ')}` };
    const expected = keyFingerprints();
    const settings = await withTimeout(
      sqlWithin<{ key: string; value: string }>(QUERY_TIMEOUT_MS, `SELECT "key", "value" FROM "InstanceSetting" WHERE "key" = ANY($1::text[])`, [expected.map(({ key }) => key)]),
      'the database',
    );
    const stored = new Map(settings.map((row) => [row.key, row.value]));
    const differs = expected.find(({ key, value }) => stored.get(key) !== value);
    if (differs) return { ready: false, reason: `${differs.variable} differs from the database` };
  } catch (error) {
    // The detail (host, port, driver message) is for the operator's log, not for whoever asks /readyz.
    log('readiness').warn({ ...errorFields(error) }, 'not ready: the database did not answer');
    return { ready: false, reason: 'database unavailable' };
  }
  return { ready: true };
}
