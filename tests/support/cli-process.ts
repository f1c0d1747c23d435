import { spawn } from 'node:child_process';
import path from 'node:path';
import { budget } from '@/scripts/speed.mjs';
import { cliArgs } from '@/tests/support/bundle';

/** What a finished `tripline` process printed, and its exit status. */
export type CliResult = { status: number | null; stdout: string; stderr: string };

const root = path.resolve(import.meta.dirname, '../..');

/** Runs `tripline <args>` as a process of its own from the project's folder, with `input` on its standard input, killed past its budget (120 s on machine C). */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: root, env: { ...process.env, ...env } });
    if (input !== undefined) child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), budget(120_000));
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
