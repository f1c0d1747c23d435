import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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
    const root = path.resolve(import.meta.dirname, '..', '..');
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { stdio: 'inherit', cwd: root });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
    return new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  });
}
