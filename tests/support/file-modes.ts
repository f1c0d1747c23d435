import fs from 'node:fs';
import path from 'node:path';

// The modes a data folder's contents must have (lib/platform/private-files.ts):
// folders 0700, everything else 0600. Shared by the command line's test
// (cli/file-modes.int.test.ts) and the first-start specs in e2e/lifecycle/.

/**
 * Every path under `dir`, itself included, whose mode is not the private one,
 * as `<path relative to dir> <octal mode>`: an empty list when all are private.
 * A file that goes away while it is walked (a running database) is skipped.
 */
export function nonPrivateModes(dir: string): string[] {
  const found: string[] = [];
  const visit = (file: string) => {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o7777;
    if (mode !== (stat.isDirectory() ? 0o700 : 0o600)) found.push(`${path.relative(dir, file) || '.'} ${mode.toString(8).padStart(4, '0')}`);
    if (!stat.isDirectory()) return;
    let names: string[] = [];
    try {
      names = fs.readdirSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const name of names) visit(path.join(file, name));
  };
  visit(dir);
  return found;
}

/** The number of entries under `dir` (itself included), to show a walk saw the folder's contents. */
export function countEntries(dir: string): number {
  return 1 + fs.readdirSync(dir, { recursive: true }).length;
}
