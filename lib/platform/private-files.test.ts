import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { privateFolder } from '@/lib/platform/private-files';

// privateFolder() on its own; the command line's data folder, whose files the
// embedded database writes, is checked under umask 022 by cli/file-modes.int.test.ts.

const modeOf = (dir: string) => (fs.statSync(dir).mode & 0o777).toString(8);

describe('privateFolder', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-private-folder-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('creates the folder and its missing parents 0700', () => {
    const dir = path.join(scratch, 'new', 'pglite');
    privateFolder(dir);
    expect([modeOf(path.join(scratch, 'new')), modeOf(dir)]).toEqual(['700', '700']);
  });

  it('takes group and other permissions off a folder that exists, and leaves its contents and its parent alone', () => {
    const parent = path.join(scratch, 'shared');
    const dir = path.join(parent, 'data');
    fs.mkdirSync(dir, { recursive: true });
    for (const folder of [parent, dir]) fs.chmodSync(folder, 0o755);
    fs.writeFileSync(path.join(dir, 'kept'), 'x');
    privateFolder(dir);
    expect(modeOf(dir)).toBe('700');
    expect(fs.readFileSync(path.join(dir, 'kept'), 'utf8')).toBe('x');
    expect(modeOf(parent)).toBe('755');
    fs.chmodSync(dir, 0o500);
    privateFolder(dir);
    expect(modeOf(dir), "the owner's own permissions are not widened").toBe('500');
    fs.chmodSync(dir, 0o700);
  });
});
