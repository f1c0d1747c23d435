import path from 'node:path';
import { targetFromEnv } from '@/lib/platform/db/adapter';
import { dumpEmbeddedFolder, writeBackupFile, type BackupManifest } from '@/lib/platform/db/backup';
import { env } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import { CLI, parseOptions, UsageError } from '../args';
import { fingerprintOf, keyInfo, KEY_FILES, readKeyFile } from '../backup-keys';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} backup <file> [--no-keys] [--force]

Copies the embedded database (TRIPLINE_DATA_DIR/pglite) into <file>. When a
server has it open, the server makes the copy (consistent, no downtime);
otherwise this command opens the database itself.

Keys: the key files in the data folder (secrets.key, auth.secret) that belong
to this database are included, so the backup restores a working instance on
its own. Anyone who has the file can then decrypt its team secrets and webhook
credentials: store it like a password. With --no-keys they are left out; then
the backup's secrets cannot be decrypted without the original secrets.key (or
TRIPLINE_SECRETS_KEY), so keep the key safe apart from it. Keys given in
TRIPLINE_SECRETS_KEY / TRIPLINE_AUTH_SECRET are never included.

  --no-keys   leave the key files out
  --force     replace <file> if it exists

Restore with: ${CLI} restore <file>
On PostgreSQL use pg_dump instead (docs/operations.md).`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { values, positionals } = parseOptions(args, { 'no-keys': { type: 'boolean' }, force: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('backup needs exactly one <file>');
    const file = path.resolve(positionals[0]!);
    if (env().databaseUrl) {
      throw new AppError('bad_request', 'backup copies the embedded database; DATABASE_URL points at PostgreSQL: use pg_dump (see docs/operations.md)');
    }
    const target = targetFromEnv(env());
    if (target.kind !== 'embedded') throw new Error('unreachable');

    const dump = await dumpEmbeddedFolder(target.dataDir);
    const keys: BackupManifest['keys'] = {};
    const notes: string[] = [];
    for (const name of KEY_FILES) {
      const { purpose, variable, protects } = keyInfo[name];
      const stored = dump.fingerprints[purpose];
      const content = readKeyFile(name);
      const matches = content !== undefined && stored !== undefined && fingerprintOf(name, content) === stored;
      if (matches && !values['no-keys']) {
        keys[name] = content;
      } else if (stored !== undefined) {
        const why = values['no-keys'] ? '--no-keys' : `no ${name} in ${env().dataDir} matches it; it comes from ${variable} or another folder`;
        notes.push(`${name} is NOT in the backup (${why}). Without that key (fingerprint ${stored}) this backup's ${protects}, and a server restored from it refuses to start: keep it safe, apart from the backup.`);
      }
    }

    const manifest = writeBackupFile(file, dump, keys, { overwrite: values.force === true });
    const from = dump.source.online ? `from the running ${dump.source.holder}` : 'with no server running';
    const megabytes = (manifest.database.bytes / 1024 / 1024).toFixed(1);
    console.log(`Backed up the embedded database in ${target.dataDir} ${from}`);
    console.log(`to ${file} (${megabytes} MB, ${manifest.database.migrations.length} migrations).`);
    const included = Object.keys(keys);
    if (included.length > 0) {
      console.log(
        `Included: ${included.join(' and ')}. Anyone who has this file can decrypt the team secrets and webhook credentials in it: store it like a password.`,
      );
    }
    for (const note of notes) console.log(note);
    return 0;
  });
}
