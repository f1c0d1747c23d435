import 'server-only';
import type { EmbeddedDatabase } from '@/lib/platform/db/pglite-thread';
import { describeThisProcess, type EmbeddedLock } from '@/lib/platform/db/embedded-lock';

// Copies of an open embedded database, for `tripline backup` (lib/platform/db/backup.ts).

export type KeyFingerprints = { secrets?: string; auth?: string };

export type Dump = { data: Buffer; migrations: string[]; fingerprints: KeyFingerprints };

/**
 * A consistent copy of an open embedded database. PGlite builds the tar from
 * its files in one synchronous step, between two statements (inside the query
 * lock here, so no statement of this process runs meanwhile); a transaction in
 * progress is simply not in it, as after a crash. The checkpoint first writes
 * everything committed into the data files, so restoring replays little WAL.
 */
export async function dumpEmbedded(pglite: EmbeddedDatabase): Promise<Dump> {
  await pglite.exec('CHECKPOINT');
  const blob = await pglite._runExclusiveQuery(() => pglite.dumpDataDir('gzip'));
  const data = Buffer.from(await blob.arrayBuffer());
  return { data, migrations: await appliedMigrations(pglite), fingerprints: await storedFingerprints(pglite) };
}

async function appliedMigrations(pglite: EmbeddedDatabase): Promise<string[]> {
  try {
    const { rows } = await pglite.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name',
    );
    return rows.map((row) => row.migration_name);
  } catch {
    return []; // never migrated
  }
}

async function storedFingerprints(pglite: EmbeddedDatabase): Promise<KeyFingerprints> {
  try {
    const { rows } = await pglite.query<{ key: string; value: string }>(
      `SELECT key, value FROM "InstanceSetting" WHERE key IN ('secrets-key-fingerprint', 'auth-secret-fingerprint')`,
    );
    const get = (key: string) => rows.find((row) => row.key === key)?.value;
    return { secrets: get('secrets-key-fingerprint'), auth: get('auth-secret-fingerprint') };
  } catch {
    return {};
  }
}

/** Answers `backup` requests on the lock socket of an open embedded database. */
export function serveBackups(lock: EmbeddedLock, pglite: EmbeddedDatabase): void {
  const holder = `process ${process.pid} (${describeThisProcess()})`;
  lock.handle('backup', async () => {
    const dump = await dumpEmbedded(pglite);
    return { header: { migrations: dump.migrations, fingerprints: dump.fingerprints, holder }, body: dump.data };
  });
}
