import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// Starting and seeding real Tripline servers for the end-to-end tests.

const root = path.resolve(import.meta.dirname, '..');

export type ServerEnv = Record<string, string>;

const cliArgs = (args: string[]) => ['--conditions=react-server', '--import', 'tsx', 'cli/tripline.ts', ...args];

function cliResult(args: string[], status: number | null, stdout: string, stderr: string): string {
  if (status !== 0) throw new Error(`tripline ${args.join(' ')} failed (${status}):\n${stderr}\n${stdout}`);
  return stdout.trim();
}

/** Runs the tripline CLI against a server's database (before that server starts, for PGlite). */
export function cli(env: ServerEnv, args: string[], input?: string): string {
  const result = spawnSync(process.execPath, cliArgs(args), { cwd: root, env: { ...process.env, ...env }, input, encoding: 'utf8' });
  return cliResult(args, result.status, result.stdout, result.stderr);
}

/** cli() without blocking: global-setup.ts seeds its databases side by side. */
export function cliAsync(env: ServerEnv, args: string[], input?: string): Promise<string> {
  const child = spawn(process.execPath, cliArgs(args), { cwd: root, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      try {
        resolve(cliResult(args, status, stdout, stderr));
      } catch (error) {
        reject(error);
      }
    });
  });
}

export type RunningServer = { url: string; process: ChildProcess; logFile: string; stop: () => Promise<void> };

export async function startServer(name: string, port: number, env: ServerEnv): Promise<RunningServer> {
  const logDir = path.join(root, 'test-results', 'servers');
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const log = fs.openSync(logFile, 'w');
  // The server entry, as `npm start` runs it (without the build check).
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'serve.mjs')], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', log, log],
  });
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`Server ${name} exited with ${child.exitCode}:\n${fs.readFileSync(logFile, 'utf8')}`);
    }
    try {
      // Ready: migrations applied, keys checked, workers started.
      const response = await fetch(`${url}/readyz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`Server ${name} did not start:\n${fs.readFileSync(logFile, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    process: child,
    logFile,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}
