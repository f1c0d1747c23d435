import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A real git repository in a temporary folder, committed to with the git binary. */
export function localRepository() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tripline-defs-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '--quiet', '--initial-branch=main');
  mkdirSync(path.join(dir, 'webhooks'));
  return {
    dir,
    write: (file: string, content: string) => writeFileSync(path.join(dir, file), content),
    remove: (file: string) => unlinkSync(path.join(dir, file)),
    commit: (message: string) => {
      git('add', '--all');
      git('commit', '--quiet', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
