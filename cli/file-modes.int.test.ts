import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { budget } from '@/scripts/speed.mjs';
import { countEntries, nonPrivateModes } from '@/tests/support/file-modes';
import { cliArgs } from '@/tests/support/bundle';

// The embedded database holds password hashes, encrypted secrets and every
// delivery's body: the command line, run by a user whose umask is the common
// 022, creates its data folder with folders 0700 and files 0600 (the umask
// its entry sets, lib/platform/private-files.ts), makes a folder left open by
// an older version private again, and writes a backup 0600. Embedded only:
// on PostgreSQL the data folder holds the two key files alone (written 0600 by
// lib/platform/crypto/keys.ts). The server's own first start is checked by
// e2e/lifecycle/readme-quickstart.spec.ts, the npm package's by
// e2e/lifecycle/package.spec.ts.

const root = path.resolve(import.meta.dirname, '..');

describe('the files the command line writes, under umask 022', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-file-modes-'));
  const dataDir = path.join(scratch, '.data');
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  const tripline = (...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, TRIPLINE_DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    // The shell sets the umask a user's login shell usually has, then becomes the command.
    const result = spawnSync('/bin/sh', ['-c', 'umask 022 && exec "$@"', 'sh', process.execPath, ...cliArgs(args)], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: budget(180_000),
    });
    expect(result.status, `${args.join(' ')}:\n${result.stdout}${result.stderr}`).toBe(0);
    return result;
  };

  it('migrate deploy creates the data folder and the database private; a backup is written 0600', () => {
    tripline('migrate', 'deploy');
    // PostgreSQL's own files, written by PGlite: hundreds, not just the folders Tripline creates.
    expect(countEntries(path.join(dataDir, 'pglite'))).toBeGreaterThan(100);
    expect(nonPrivateModes(dataDir).slice(0, 20)).toEqual([]);

    const out = path.join(scratch, 'backups');
    fs.mkdirSync(out);
    tripline('backup', path.join(out, 'tripline.trlbackup'));
    expect((fs.statSync(path.join(out, 'tripline.trlbackup')).mode & 0o777).toString(8)).toBe('600');
    // The backup opened the database itself (no server runs): what that wrote is private too.
    expect(nonPrivateModes(dataDir).slice(0, 20)).toEqual([]);
  }, budget(600_000));

  it('makes a data folder an older version left open private again when it opens it', () => {
    for (const dir of [dataDir, path.join(dataDir, 'pglite')]) fs.chmodSync(dir, 0o755);
    tripline('migrate', 'status');
    expect((fs.statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    expect((fs.statSync(path.join(dataDir, 'pglite')).mode & 0o777).toString(8)).toBe('700');
  }, budget(300_000));
});
