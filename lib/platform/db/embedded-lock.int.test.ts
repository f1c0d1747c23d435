import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openAdapter } from '@/lib/platform/db/adapter';
import { acquireEmbeddedLock, EmbeddedDatabaseBusyError, lockSocketPath } from '@/lib/platform/db/embedded-lock';
import { applyPendingMigrations } from '@/lib/platform/db/migrate';
import { bundled } from '@/tests/support/bundle';
import { ONE_SHOT_FLAGS } from '@/cli/one-shot-flags';

// The embedded database's lock with real processes: each holder is a child
// process (tests/support/hold-embedded.ts) that opens PGlite in a folder.

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-lock-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
});

type Holder = { child: ChildProcess; outcome: Promise<string> };

function hold(dataDir: string, env: Record<string, string> = {}): Holder {
  const child = spawn(process.execPath, [...ONE_SHOT_FLAGS, '--conditions=react-server', bundled('hold-embedded'), dataDir], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const outcome = new Promise<string>((resolve) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => /^(ready|busy|error)/.test(candidate));
      if (line) resolve(line);
    });
    child.on('exit', (code) => resolve(`exited ${code}: ${output}`));
  });
  return { child, outcome };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

describe('the embedded database lock', () => {
  it('refuses a second process with a message naming the holder, and frees the folder when the holder stops', async () => {
    const dataDir = path.join(scratch, 'two', 'pglite');
    const first = hold(dataDir);
    expect(await first.outcome).toBe(`ready ${first.child.pid}`);
    const second = hold(dataDir);
    const refusal = await second.outcome;
    expect(refusal).toContain(`busy: The embedded database in ${dataDir} is in use by process ${first.child.pid} (hold-embedded.mjs ${dataDir}, since `);
    expect(refusal).toContain('Stop that process first');
    first.child.stdin!.end();
    await exited(first.child);
    const third = hold(dataDir);
    expect(await third.outcome).toBe(`ready ${third.child.pid}`);
    third.child.stdin!.end();
    await exited(third.child);
  });

  it('lets a process start right after the holder was killed with SIGKILL', async () => {
    const dataDir = path.join(scratch, 'killed', 'pglite');
    const first = hold(dataDir);
    expect(await first.outcome).toMatch(/^ready /);
    first.child.kill('SIGKILL');
    // No waiting for the killed process to be reaped: the next start begins at once.
    const second = hold(dataDir);
    expect(await second.outcome).toBe(`ready ${second.child.pid}`);
    // The dead holder's socket file was still there, and was replaced.
    expect(fs.lstatSync(lockSocketPath(dataDir)).isSocket()).toBe(true);
    second.child.stdin!.end();
    await exited(second.child);
  });

  it('ignores a PID file of earlier versions naming a live unrelated process, or the new process itself', async () => {
    const dataDir = path.join(scratch, 'pidfile', 'pglite');
    fs.mkdirSync(dataDir, { recursive: true });
    // This test runner: alive, and not a Tripline holder.
    fs.writeFileSync(path.join(dataDir, 'tripline.lock'), String(process.pid));
    const first = hold(dataDir);
    expect(await first.outcome).toBe(`ready ${first.child.pid}`);
    expect(fs.existsSync(path.join(dataDir, 'tripline.lock'))).toBe(false);
    first.child.stdin!.end();
    await exited(first.child);

    const second = hold(dataDir, { WRITE_OWN_PID_FILE: '1' });
    expect(await second.outcome).toBe(`ready ${second.child.pid}`);
    second.child.stdin!.end();
    await exited(second.child);
  });

  it('works for a data folder whose path is too long for a Unix socket', async () => {
    const deep = path.join(scratch, 'a'.repeat(60), 'b'.repeat(60), 'pglite');
    expect(Buffer.byteLength(lockSocketPath(deep))).toBeGreaterThan(108);
    const first = hold(deep);
    expect(await first.outcome).toBe(`ready ${first.child.pid}`);
    const second = hold(deep);
    expect(await second.outcome).toContain(`is in use by process ${first.child.pid}`);
    first.child.kill('SIGKILL');
    const third = hold(deep);
    expect(await third.outcome).toBe(`ready ${third.child.pid}`);
    third.child.stdin!.end();
    await exited(third.child);
  });

  it('refuses a second open in the same process, and the lock is free again after close', async () => {
    const dataDir = path.join(scratch, 'same-process', 'pglite');
    const adapter = openAdapter({ kind: 'embedded', dataDir });
    await adapter.pglite!.query('SELECT 1');
    const second = openAdapter({ kind: 'embedded', dataDir });
    await expect(second.pglite!.query('SELECT 1')).rejects.toBeInstanceOf(EmbeddedDatabaseBusyError);
    // Not as the schema engine's "External error": migrating waits for the lock first.
    await expect(applyPendingMigrations(second)).rejects.toBeInstanceOf(EmbeddedDatabaseBusyError);
    await second.close();
    await adapter.close();
    const lock = await acquireEmbeddedLock(dataDir);
    lock.release();
  });

  it('refuses a path that is not a socket instead of deleting it', async () => {
    const dataDir = path.join(scratch, 'not-a-socket', 'pglite');
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    fs.writeFileSync(lockSocketPath(dataDir), 'something else');
    await expect(acquireEmbeddedLock(dataDir)).rejects.toThrow('is not a lock socket');
    expect(fs.readFileSync(lockSocketPath(dataDir), 'utf8')).toBe('something else');
  });
});
