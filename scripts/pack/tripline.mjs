#!/usr/bin/env node
// The npm package's `tripline` command (scripts/pack.mjs copies this file to
// dist/tripline.mjs). Every command runs from the user's own folder: the data
// folder is TRIPLINE_DATA_DIR or .data there, as with npm start in a clone,
// while Tripline's own files (the build, the migrations, the embedded
// database's worker) are read from the package's app folder.
//
// It imports only Node.js and dist/unpack.mjs: it is copied into the package
// as it is, beside the bundle of that file.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { appFolder } from './unpack.mjs';

// The app ships as one archive, unpacked on the first run of each version (scripts/pack/unpack.mjs),
// under the user's own umask: a global install's app folder is read by every user who runs it.
// The data folder is another matter: cli.mjs (cli/tripline.ts) makes everything created from then
// on private before it loads any command (lib/platform/private-files.ts).
const app = appFolder(import.meta.dirname);
process.env.TRIPLINE_APP_DIR = app;
// Resolved now, so that it means the same folder for every module that reads it.
process.env.TRIPLINE_DATA_DIR = path.resolve(process.env.TRIPLINE_DATA_DIR || '.data');
process.env.NEXT_TELEMETRY_DISABLED = '1';
// The command's own name in usage lines and hints (cli/args.ts).
process.env.TRIPLINE_CLI_NAME = 'tripline';

// Where argon2 has no native binary for the platform, its WebAssembly build
// runs on Node.js's WASI, which warns "experimental" in every thread that
// loads it: a line the user can do nothing about, repeated per command. The
// warning is dropped here, and for the worker threads through their flags
// (a worker takes the process's execArgv).
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  if (String(warning instanceof Error ? warning.message : warning).startsWith('WASI is an experimental feature')) return;
  return emitWarning.call(process, warning, ...rest);
};
process.execArgv.push('--disable-warning=ExperimentalWarning');

if (process.argv[2] === 'start') {
  // The server's V8 settings, first: this may restart the process with them
  // (server.ts applies them too; here it happens before the CLI is loaded).
  await import(pathToFileURL(path.join(app, 'scripts', 'server-flags.mjs')).href);
  // The server's modules load outside the CLI's react-server conditions (cli.mjs
  // is built with them); the server reads NODE_ENV when Next.js is imported.
  process.env.NODE_ENV ??= 'production';
  // The build's own configuration: the package has no next.config.mjs (nor
  // the tools it would load), so Next.js takes it from here, as Next's own
  // standalone server does.
  const { buildDir } = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')).tripline;
  const { config } = JSON.parse(fs.readFileSync(path.join(app, buildDir, 'required-server-files.json'), 'utf8'));
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
}
await import(pathToFileURL(path.join(app, 'cli.mjs')).href);
