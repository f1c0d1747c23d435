import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { appDir } from '@/lib/platform/app-dir';
import { runCommand } from '../run-command';
import { CLI, UsageError } from '../args';

const usage = `Usage: ${CLI} start

Serves Tripline on PORT (3000), with the embedded database in TRIPLINE_DATA_DIR
(.data in the current folder) unless DATABASE_URL is set. Migrations are
applied and missing keys generated at start, as with npm start.

From the npm package it serves the prebuilt app in the package; in a clone it
runs npm start (which builds the app first when the sources changed).
Stop it with Ctrl-C (SIGINT) or SIGTERM: it drains in-flight requests first.`;

/** The prebuilt server of the npm package (scripts/pack.mjs), when this CLI runs from one. */
function packagedServer(): string | undefined {
  const dir = process.env.TRIPLINE_APP_DIR;
  if (!dir) return undefined;
  const file = path.join(dir, 'server.mjs');
  return fs.existsSync(file) ? file : undefined;
}

export function run(args: string[]): Promise<number> {
  return runCommand(usage, args, async () => {
    if (args.length > 0) throw new UsageError(`start takes no arguments (got ${args.join(' ')})`);
    const server = packagedServer();
    if (server) {
      // In this process: the server owns the signals and exits when it has drained.
      await import(/* @vite-ignore */ pathToFileURL(server).href);
      return new Promise<number>(() => {});
    }
    // A clone: npm start's own script, in a process of its own (this one runs under tsx's react-server conditions).
    // The project's folder, where `npm run tripline` runs (not this file's: the command line may run bundled).
    const root = appDir();
    // A process group of its own: Ctrl-C then reaches the server once, passed on from here, where it
    // reached it twice (the terminal's group, and this process), and the server took the second as
    // "exit at once", cutting in-flight requests and runs instead of draining them.
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { stdio: 'inherit', cwd: root, detached: true });
    // To its whole group: a build it is running stops too.
    const pass = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => pass(signal === 'SIGHUP' ? 'SIGTERM' : signal));
    return new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  });
}
