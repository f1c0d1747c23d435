import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotABackupError, readBackupFile, writeBackupFile } from '@/lib/platform/db/backup';

// The backup file's framing; backup and restore of real databases are in
// e2e/lifecycle/embedded-backup.spec.ts.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-backup-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const dump = { data: Buffer.from('not really a tar, but bytes'), migrations: ['20260101000000_init'], fingerprints: { secrets: 'abc', auth: 'def' } };

describe('backup files', () => {
  it('round-trips the data, migrations, fingerprints and keys, written 0600', () => {
    const file = path.join(dir, 'ok.trlbackup');
    writeBackupFile(file, dump, { 'secrets.key': 'KEY\n' }, { overwrite: false });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const { manifest, data } = readBackupFile(file);
    expect(data.equals(dump.data)).toBe(true);
    expect(manifest).toMatchObject({ format: 1, database: { migrations: dump.migrations }, fingerprints: dump.fingerprints, keys: { 'secrets.key': 'KEY\n' } });
    expect(fs.readdirSync(dir)).toEqual(['ok.trlbackup']);
  });

  it('does not replace an existing file unless asked', () => {
    const file = path.join(dir, 'exists.trlbackup');
    fs.writeFileSync(file, 'precious');
    expect(() => writeBackupFile(file, dump, {}, { overwrite: false })).toThrow('already exists (use --force');
    expect(fs.readFileSync(file, 'utf8')).toBe('precious');
    writeBackupFile(file, dump, {}, { overwrite: true });
    expect(readBackupFile(file).manifest.keys).toEqual({});
  });

  it('refuses files that are not backups, truncated or altered', () => {
    const other = path.join(dir, 'other');
    fs.writeFileSync(other, '{"name": "not a backup"}');
    expect(() => readBackupFile(other)).toThrow(NotABackupError);
    expect(() => readBackupFile(other)).toThrow(`${other} is not a Tripline backup (it does not start like one)`);

    const good = path.join(dir, 'good.trlbackup');
    writeBackupFile(good, dump, {}, { overwrite: true });
    const bytes = fs.readFileSync(good);
    const truncated = path.join(dir, 'truncated');
    fs.writeFileSync(truncated, bytes.subarray(0, bytes.length - 3));
    expect(() => readBackupFile(truncated)).toThrow(/truncated\?\)$/);
    const altered = path.join(dir, 'altered');
    const copy = Buffer.from(bytes);
    copy[copy.length - 1] = copy.at(-1)! ^ 1;
    fs.writeFileSync(altered, copy);
    expect(() => readBackupFile(altered)).toThrow('its database does not match its checksum: damaged');
  });
});
