// A one-shot command's V8 settings, applied before anything else loads
// (cli/tripline.ts imports this first), as the server's are
// (scripts/server-flags.mjs); docs/decisions/0116.
//
// The embedded database (PGlite, 8.7 MB of WebAssembly) and the database
// client's query compiler (3.4 MB) are compiled when a command first opens the
// database. V8 compiles WebAssembly twice: a quick baseline (Liftoff) at once,
// then optimized code (TurboFan) in background threads for what runs often,
// which opening the embedded database does a great deal of. A long-running
// server gains from the second; a command that exits a second later pays it
// and never uses it. `tripline webhook list` on the embedded database, on a
// 2-core machine (Node.js 24): 5.5 CPU-s and 770 MB at its peak with it,
// 2.3 CPU-s and 240 MB without; on PostgreSQL 2.0 against 1.5 CPU-s.
//
// So a one-shot command replaces its process (same pid, same stdio, same
// arguments) with one whose WebAssembly stays on the baseline compiler
// (TurboFan still compiles a function the baseline cannot). The long-running
// commands keep V8's default: `start` (the server), `worker` and `listen`. A
// Node.js without process.execve (Windows; 22.12 to 22.14) runs every command
// with V8's default.

import { LONG_RUNNING_COMMANDS, ONE_SHOT_FLAGS } from './one-shot-flags';

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;
const execve = (process as NodeJS.Process & { execve?: Execve }).execve;
const command = process.argv[2];

if (
  command &&
  !command.startsWith('-') &&
  command !== 'help' &&
  !LONG_RUNNING_COMMANDS.has(command) &&
  !ONE_SHOT_FLAGS.some((flag) => process.execArgv.includes(flag)) &&
  typeof execve === 'function' &&
  process.platform !== 'win32'
) {
  execve.call(process, process.execPath, [process.execPath, ...ONE_SHOT_FLAGS, ...process.execArgv, ...process.argv.slice(1)], process.env);
}
