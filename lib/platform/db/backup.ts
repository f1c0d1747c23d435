import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { acquireEmbeddedLock, EmbeddedDatabaseBusyError, describeHolder, lockSocketPath, request } from '@/lib/platform/db/embedded-lock';
import { pgliteExtensions } from '@/lib/platform/db/pglite-extensions';
import { openAdapter } from '@/lib/platform/db/adapter';
import { dumpEmbedded, type Dump, type KeyFingerprints } from '@/lib/platform/db/dump';
import { privateFolder } from '@/lib/platform/private-files';

// Backups of the embedded database. A backup file is
//
//   TRIPLINE-BACKUP 1\n
//   <manifest: one line of JSON>\n
//   <PGlite's dumpDataDir(): the data folder as a gzipped tar>
//
// The manifest names the byte count and SHA-256 of the dump (a truncated or
// altered file is refused), the migrations it contains, the fingerprints of
// the keys the database was used with, and, unless left out, the key files
// themselves (see cli/commands/backup.ts for that choice).

const MAGIC = 'TRIPLINE-BACKUP 1\n';

export const KEY_FILES = ['secrets.key', 'auth.secret'] as const;
export type KeyFile = (typeof KEY_FILES)[number];

export type BackupManifest = {
  format: 1;
  createdAt: string;
  database: { bytes: number; sha256: string; migrations: string[] };
  /** The database's own record of its keys (InstanceSetting). */
  fingerprints: KeyFingerprints;
  /** Key files included in the backup, by name. */
  keys: Partial<Record<KeyFile, string>>;
};

export class NotABackupError extends Error {
  constructor(file: string, reason: string) {
    super(`${file} is not a Tripline backup (${reason})`);
    this.name = 'NotABackupError';
  }
}

export type DumpSource = { online: true; holder: string } | { online: false };

/**
 * Dumps the embedded database in dataDir: through the lock socket from the
 * process that has it open (a running server), or, when none does, by
 * opening it here under the lock.
 */
export async function dumpEmbeddedFolder(dataDir: string): Promise<Dump & { source: DumpSource }> {
  try {
    const reply = await request(lockSocketPath(dataDir), { op: 'backup' }, 10 * 60_000);
    const header = reply.header as { error?: string; migrations: string[]; fingerprints: KeyFingerprints; holder: string };
    if (header.error) throw new Error(`The running instance could not back up: ${header.error}`);
    return {
      data: reply.body ?? Buffer.alloc(0),
      migrations: header.migrations,
      fingerprints: header.fingerprints,
      source: { online: true, holder: header.holder },
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ECONNREFUSED' && code !== 'ENOENT') throw error;
  }
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) throw new Error(`There is no embedded database in ${dataDir} to back up`);
  const adapter = openAdapter({ kind: 'embedded', dataDir });
  try {
    return { ...(await dumpEmbedded(adapter.pglite!)), source: { online: false } };
  } finally {
    await adapter.close();
  }
}

export function writeBackupFile(file: string, dump: Dump, keys: BackupManifest['keys'], options: { overwrite: boolean }): BackupManifest {
  const manifest: BackupManifest = {
    format: 1,
    createdAt: new Date().toISOString(),
    database: { bytes: dump.data.length, sha256: sha256(dump.data), migrations: dump.migrations },
    fingerprints: dump.fingerprints,
    keys,
  };
  if (!options.overwrite && fs.existsSync(file)) throw new Error(`${file} already exists (use --force to replace it)`);
  // Written aside, then renamed: a crash never leaves half a backup under the name.
  const partial = `${file}.partial-${randomBytes(4).toString('hex')}`;
  try {
    fs.writeFileSync(partial, Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(manifest)}\n`), dump.data]), { mode: 0o600 });
    fs.renameSync(partial, file);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return manifest;
}

export function readBackupFile(file: string): { manifest: BackupManifest; data: Buffer } {
  const content = fs.readFileSync(file);
  if (!content.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) {
    throw new NotABackupError(file, 'it does not start like one');
  }
  const end = content.indexOf(0x0a, MAGIC.length);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(content.subarray(MAGIC.length, end).toString('utf8')) as BackupManifest;
  } catch {
    throw new NotABackupError(file, 'its description is damaged');
  }
  if (manifest.format !== 1) throw new NotABackupError(file, `format ${String(manifest.format)}: made by a newer Tripline?`);
  const data = content.subarray(end + 1);
  if (data.length !== manifest.database.bytes) {
    throw new NotABackupError(file, `it holds ${data.length} bytes of database, its description says ${manifest.database.bytes}: truncated?`);
  }
  if (sha256(data) !== manifest.database.sha256) throw new NotABackupError(file, 'its database does not match its checksum: damaged');
  return { manifest, data };
}

export class RestoreRefusedError extends Error {}

/**
 * Replaces the embedded database in dataDir with a backup's. Refuses while
 * any process has the folder open. The backup is unpacked and opened in a
 * folder beside it first (PGlite recovers it there), so a failure changes
 * nothing; the database it replaces is kept beside it, renamed.
 */
export async function restoreEmbedded(
  dataDir: string,
  data: Buffer,
  keys: { apply: () => string[] },
): Promise<{ previous: string | undefined; keyChanges: string[] }> {
  let lock;
  try {
    lock = await acquireEmbeddedLock(dataDir);
  } catch (error) {
    if (error instanceof EmbeddedDatabaseBusyError) {
      throw new RestoreRefusedError(
        `Refusing to restore: the embedded database in ${dataDir} is in use by ${describeHolder(error.holder)}. Stop it first, then restore.`,
      );
    }
    throw error;
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const staging = `${dataDir}.restoring-${stamp}`;
  try {
    fs.rmSync(staging, { recursive: true, force: true });
    const restored = new PGlite(staging, { extensions: pgliteExtensions, loadDataDir: new Blob([new Uint8Array(data)], { type: 'application/x-gzip' }) });
    try {
      await restored.query('SELECT 1');
    } finally {
      await restored.close();
    }
    let previous: string | undefined;
    if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
      previous = `${dataDir}.before-restore-${stamp}`;
      fs.renameSync(dataDir, previous);
    } else {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    fs.renameSync(staging, dataDir);
    // PGlite created the staging folder under the process's umask; the restored database is private whatever that was.
    privateFolder(dataDir);
    return { previous, keyChanges: keys.apply() };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    lock.release();
  }
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
