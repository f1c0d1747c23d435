import fs from 'node:fs';
import path from 'node:path';
import { targetFromEnv } from '@/lib/platform/db/adapter';
import { NotABackupError, readBackupFile, restoreEmbedded, RestoreRefusedError } from '@/lib/platform/db/backup';
import { env } from '@/lib/platform/env';
import { privateFolder } from '@/lib/platform/private-files';
import { AppError } from '@/lib/platform/http/errors';
import { CLI, parseOptions, UsageError } from '../args';
import { fingerprintOf, keyFilePath, keyInEffect, keyInfo, KEY_FILES, readKeyFile } from '../backup-keys';
import { runCommand } from '../run-command';

const usage = `Usage: ${CLI} restore <file>

Replaces the embedded database (TRIPLINE_DATA_DIR/pglite) with the one in
<file>, a file written by \`tripline backup\`. Stop the server first: restore
refuses while any process has the database open. The database it replaces is
kept beside it (pglite.before-restore-<time>) until you delete it.

Key files in the backup (secrets.key, auth.secret) are written to the data
folder; a different existing one is kept as <name>.before-restore-<time>.
Without the secrets key the backup was made with, its team secrets and webhook
credentials cannot be decrypted and the server refuses to start: restore says
so when the keys in effect do not match the backup.

On PostgreSQL use pg_restore instead (docs/operations.md).`;

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    const { positionals } = parseOptions(args, {});
    if (positionals.length !== 1) throw new UsageError('restore needs exactly one <file>');
    const file = path.resolve(positionals[0]!);
    if (env().databaseUrl) {
      throw new AppError('bad_request', 'restore replaces the embedded database; DATABASE_URL points at PostgreSQL: use pg_restore (see docs/operations.md)');
    }
    const target = targetFromEnv(env());
    if (target.kind !== 'embedded') throw new Error('unreachable');

    let backup;
    try {
      backup = readBackupFile(file);
    } catch (error) {
      if (error instanceof NotABackupError) throw new AppError('bad_request', error.message);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('not_found', `${file} does not exist`);
      throw error;
    }
    const { manifest, data } = backup;
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

    let result;
    try {
      result = await restoreEmbedded(target.dataDir, data, {
        // Written under the lock, once the database is in place.
        apply: () => {
          const changes: string[] = [];
          for (const name of KEY_FILES) {
            const content = manifest.keys[name];
            if (content === undefined) continue;
            const existing = readKeyFile(name);
            if (existing === content) continue;
            const file = keyFilePath(name);
            privateFolder(path.dirname(file));
            if (existing !== undefined) {
              fs.renameSync(file, `${file}.before-restore-${stamp}`);
              changes.push(`${name} restored from the backup (the previous one is kept as ${name}.before-restore-${stamp})`);
            } else {
              changes.push(`${name} restored from the backup`);
            }
            fs.writeFileSync(file, content, { mode: 0o600 });
          }
          return changes;
        },
      });
    } catch (error) {
      if (error instanceof RestoreRefusedError) throw new AppError('conflict', error.message);
      throw error;
    }

    console.log(`Restored the embedded database in ${target.dataDir} from ${file}`);
    console.log(`(backup of ${manifest.createdAt}, ${manifest.database.migrations.length} migrations).`);
    if (result.previous) console.log(`The database it replaced is kept in ${result.previous}: delete it once the restored one works.`);
    for (const change of result.keyChanges) console.log(`Keys: ${change}.`);

    // The server checks its keys against the database's fingerprints at start.
    let startable = true;
    for (const name of KEY_FILES) {
      const { purpose, variable, protects } = keyInfo[name];
      const expected = manifest.fingerprints[purpose];
      if (expected === undefined) continue;
      const effective = keyInEffect(name);
      if (effective && fingerprintOf(name, effective.value) === expected) continue;
      startable = false;
      const problem = effective ? `${effective.from} holds a different key` : `there is no ${name} and ${variable} is unset`;
      console.log(
        `Warning: this database was used with a ${name} of fingerprint ${expected}, but ${problem}. ` +
          `Without that key its ${protects}, and the server refuses to start: put the original ${name} in ${env().dataDir} or set ${variable} to it.`,
      );
    }
    console.log(startable ? 'Start the server; it applies any migrations newer than the backup.' : 'Fix the keys above, then start the server.');
    return 0;
  });
}
