// `npm pack`'s prepack step: builds what the npm package holds, into dist/.
//
//   dist/tripline.mjs      the `tripline` command (scripts/pack/tripline.mjs)
//   dist/unpack.mjs        unpacks the app on a version's first run (scripts/pack/unpack.mjs, with node-tar)
//   dist/app.tar.gz        the app folder below, as one archive; dist/app.json names it
//
// The app folder, built in dist/app and then archived:
//   dist/app/cli.mjs       the command line, prebuilt with esbuild (no tsx at run time);
//                          each command a chunk of its own, loaded when run
//   dist/app/server.mjs    server.ts, prebuilt the same way
//   dist/app/<build>/      the production build (Next.js's standalone output, static files):
//                          .next when `npm test`'s current build is taken as it is, else .next-pack
//   dist/app/node_modules/ only the files of the packages the server and the CLI load
//                          (Next.js's trace, plus the packages kept out of the bundles whole)
//   dist/app/prisma/       the migrations and the schema the schema engine reads, and
//                          the new embedded database with them applied (embedded-template.tar.gz)
//   dist/app/lib/platform/db/pglite-worker.mjs   the embedded database's thread
//   dist/app/scripts/server-flags.mjs            the server's V8 settings
//
// The package needs no install step of its own: it declares no dependencies
// (docs/decisions/0080-the-npm-package-is-self-contained.md).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import * as tar from 'tar';
import nextConfig from '../next.config.mjs';
import { buildIsCurrent } from './build-stamp.mjs';
import { QUERY_COMPILER_WASM } from './query-compiler.mjs';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
/**
 * `npm test` builds with Next's standalone output (scripts/test.mjs), so a pack
 * right after it, as the package's end-to-end test does, takes that build as
 * it is when the sources have not changed since: a second build of the same
 * sources cost about 100 s of the CI's two cores. Any other pack builds its
 * own, in a folder of its own (a developer's `npm start` build is not a
 * standalone one). The folder keeps its name in the package: the build's
 * routes carry it.
 */
function currentStandaloneBuild() {
  const dir = process.env.NEXT_DIST_DIR || '.next';
  const required = path.join(dir, 'required-server-files.json');
  if (!fs.existsSync(required) || !fs.existsSync(path.join(dir, 'standalone'))) return null;
  if (JSON.parse(fs.readFileSync(required, 'utf8')).config?.output !== 'standalone') return null;
  return buildIsCurrent() ? dir : null;
}
const reused = process.env.TRIPLINE_PACK_REUSE_BUILD ? '.next-pack' : currentStandaloneBuild();
const DIST_DIR = reused ?? '.next-pack';
const out = path.join(root, 'dist');
const app = path.join(out, 'app');

// Kept out of the bundles (next.config.mjs serverExternalPackages: native or
// wasm files loaded at run time). Next's trace copies the files of them that
// the server's code reaches; the ones below are copied whole, since the worker
// and the CLI reach more (PGlite's extensions, the schema engine's wasm file).
const EXTERNAL_PACKAGES = nextConfig.serverExternalPackages;
const WHOLE_PACKAGES = ['@electric-sql/pglite', '@prisma/schema-engine-wasm', '@node-rs/argon2'];
// Traced but never loaded: sharp serves next/image, which Tripline does not use.
const UNUSED_PACKAGES = ['sharp', '@img'];

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function copy(from, to) {
  fs.cpSync(from, to, { recursive: true, dereference: true, force: true });
}

/**
 * Copies node_modules/<name> into the package's node_modules, with every
 * package it depends on that npm hoisted out of its folder (those nested in
 * its own node_modules come with it), found as Node.js resolves them: the
 * package's own node_modules, then each one above it.
 */
function copyWithDependencies(name, from = path.join('node_modules', name), seen = new Set()) {
  if (seen.has(from)) return;
  // A package nested in one copied already came with its folder.
  if (![...seen].some((copied) => from.startsWith(`${copied}/`))) copy(from, path.join(app, from));
  seen.add(from);
  const manifest = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8'));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    let found = null;
    for (let dir = from; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', dependency);
      if (fs.existsSync(path.join(candidate, 'package.json'))) found = candidate;
      if (found || dir === '.') break;
    }
    if (!found) throw new Error(`${name} depends on ${dependency}, which is not installed`);
    copyWithDependencies(dependency, found, seen);
  }
}

/**
 * Turbopack loads a package kept out of the bundle under an alias
 * (<name>-<hash>), a symbolic link in <build>/node_modules to the package.
 * npm leaves symbolic links out of a package, so the build's code is given
 * the packages' own names instead (each alias stands for the one installed
 * version), and the links are dropped.
 */
function unaliasExternals(linksDir, buildDir) {
  const aliases = new Map();
  for (const entry of fs.readdirSync(linksDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const link = path.join(entry.parentPath, entry.name);
    const alias = path.relative(linksDir, link).split(path.sep).join('/');
    const target = path.relative(path.join(path.dirname(linksDir), '..', 'node_modules'), path.resolve(path.dirname(link), fs.readlinkSync(link)));
    aliases.set(alias, target.split(path.sep).join('/'));
  }
  const pattern = new RegExp(`(["'])(${[...aliases.keys()].map((alias) => alias.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})(?=["'/])`, 'g');
  let files = 0;
  for (const entry of fs.readdirSync(path.join(buildDir, 'server'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, 'utf8');
    const replaced = aliases.size ? text.replace(pattern, (_, quote, alias) => quote + aliases.get(alias)) : text;
    if (replaced !== text) {
      fs.writeFileSync(file, replaced);
      files++;
    }
  }
  fs.rmSync(path.join(buildDir, 'node_modules'), { recursive: true, force: true });
  // The trace files: what the build used, read by nothing at run time.
  for (const entry of fs.readdirSync(buildDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.nft.json')) fs.rmSync(path.join(entry.parentPath, entry.name));
  }
  step(`${aliases.size} package aliases replaced by their names in ${files} files`);
}

const started = Date.now();
const step = (text) => console.log(`[pack] ${text} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

if (reused) {
  step(`taking the current standalone build in ${reused}`);
} else {
  step('building the app (Next.js standalone output)');
  run(process.execPath, ['scripts/prisma-generate.mjs']);
  run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { NEXT_DIST_DIR: DIST_DIR, TRIPLINE_STANDALONE: '1', NEXT_TELEMETRY_DISABLED: '1' });
}

fs.rmSync(out, { recursive: true, force: true });
const standalone = path.join(DIST_DIR, 'standalone');
step('copying the standalone output');
// Only the build and node_modules: the trace also takes the project's sources
// (the code resolves files from a folder given at run time), which the build
// has compiled in; Next's own entry (server.js) is replaced by Tripline's.
for (const part of [DIST_DIR, 'node_modules']) copy(path.join(standalone, part), path.join(app, part));
unaliasExternals(path.join(standalone, DIST_DIR, 'node_modules'), path.join(app, DIST_DIR));
for (const name of UNUSED_PACKAGES) fs.rmSync(path.join(app, 'node_modules', name), { recursive: true, force: true });
copy(path.join(DIST_DIR, 'static'), path.join(app, DIST_DIR, 'static'));
if (fs.existsSync('public')) copy('public', path.join(app, 'public'));
// Build caches and type stubs: not needed to serve.
for (const leftover of ['cache', 'types', 'dev']) fs.rmSync(path.join(app, DIST_DIR, leftover), { recursive: true, force: true });

for (const name of WHOLE_PACKAGES) {
  const from = path.join('node_modules', name);
  if (!fs.existsSync(from)) continue;
  fs.rmSync(path.join(app, 'node_modules', name), { recursive: true, force: true });
  copy(from, path.join(app, 'node_modules', name));
}
// @node-rs/argon2's bindings, with what they load: the native binary for
// this platform (an optional dependency of it), and its WebAssembly build
// (@node-rs/argon2-wasm32-wasi, a dev dependency of the project), which
// @node-rs/argon2 loads where no native binary is present: the package then
// runs on every platform Node.js runs on, not only the one it was packed on.
for (const name of fs.readdirSync('node_modules/@node-rs')) {
  if (name.startsWith('argon2-')) copyWithDependencies(`@node-rs/${name}`);
}
// node-tar, with which the worker unpacks the template into a new data folder.
copyWithDependencies('tar');

copy('prisma/migrations', path.join(app, 'prisma/migrations'));
copy('prisma/schema.prisma', path.join(app, 'prisma/schema.prisma'));
copy('lib/platform/db/pglite-worker.mjs', path.join(app, 'lib/platform/db/pglite-worker.mjs'));
copy(QUERY_COMPILER_WASM, path.join(app, QUERY_COMPILER_WASM));
// Loaded by the launcher before anything else for `tripline start` (the server's V8 settings).
copy('scripts/server-flags.mjs', path.join(app, 'scripts/server-flags.mjs'));

step('bundling the server entry and the command line (esbuild)');
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
  legalComments: 'none',
  // ESM output: require() for the CommonJS packages bundled in.
  banner: { js: "import { createRequire as __tripline_createRequire } from 'node:module'; const require = __tripline_createRequire(import.meta.url);" },
};
const serverExternal = ['next', ...EXTERNAL_PACKAGES];
await build({ ...common, entryPoints: ['server.ts'], outfile: path.join(app, 'server.mjs'), external: serverExternal });
await build({
  ...common,
  entryPoints: { cli: 'cli/tripline.ts' },
  outdir: app,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'cli-chunks/[name]-[hash]',
  // As `npm run tripline` runs it: server-only resolves to its server build.
  conditions: ['react-server'],
  external: [...EXTERNAL_PACKAGES, 'next'],
});

// The launcher reads the build's folder name from here (tripline.buildDir).
fs.writeFileSync(path.join(app, 'package.json'), `${JSON.stringify({ type: 'module', private: true, tripline: { buildDir: DIST_DIR } }, null, 2)}\n`);
copy('scripts/pack/tripline.mjs', path.join(out, 'tripline.mjs'));
fs.chmodSync(path.join(out, 'tripline.mjs'), 0o755);

step('migrating the embedded database a new instance starts from');
// With WebAssembly on V8's baseline compiler, as the command line it runs restarts itself
// (cli/one-shot-flags.ts, decision 0116): it opens the database once to dump it.
run(process.execPath, ['--no-wasm-tier-up', '--no-wasm-dynamic-tiering', 'scripts/pack/embedded-template.mjs', out]);

// Files no server reads: the packages' source maps, type declarations and
// tests, and PGlite's extensions other than the ones the migrations create
// (the worker's list, lib/platform/db/pglite-worker.mjs).
const PGLITE_EXTENSIONS = ['btree_gin', 'pg_trgm'];
function prune(modules) {
  let removed = 0;
  const remove = (file) => {
    fs.rmSync(file, { recursive: true, force: true });
    removed++;
  };
  for (const entry of fs.readdirSync(modules, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && /\.(map|d\.ts|d\.cts|d\.mts)$/.test(entry.name)) remove(file);
    // A package's own test folder (node_modules/<name>/test, node_modules/@scope/<name>/test).
    else if (entry.isDirectory() && ['test', 'tests'].includes(entry.name) && fs.existsSync(path.join(entry.parentPath, 'package.json'))) remove(file);
  }
  const pgliteDist = path.join(modules, '@electric-sql', 'pglite', 'dist');
  for (const name of fs.readdirSync(pgliteDist)) {
    if (name.endsWith('.tar.gz') && !PGLITE_EXTENSIONS.includes(name.slice(0, -'.tar.gz'.length))) remove(path.join(pgliteDist, name));
  }
  return removed;
}
step(`${prune(path.join(app, 'node_modules'))} files and folders no server reads left out`);

// One archive instead of its ~2,500 files: npm writes every file of a package
// it installs up to three times (scripts/pack/unpack.mjs unpacks it once).
step('archiving the app');
const archive = path.join(out, 'app.tar.gz');
let files = 0;
let bytes = 0;
for (const entry of fs.readdirSync(app, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  files++;
  bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
}
await tar.create({ gzip: true, file: archive, cwd: out, portable: true }, ['app']);
const id = createHash('sha256').update(fs.readFileSync(archive)).digest('hex').slice(0, 16);
fs.writeFileSync(path.join(out, 'app.json'), `${JSON.stringify({ id, files, bytes }, null, 2)}\n`);
fs.rmSync(app, { recursive: true, force: true });
await build({ ...common, entryPoints: ['scripts/pack/unpack.mjs'], outfile: path.join(out, 'unpack.mjs') });
step(`done: dist/ (the app: ${files} files, ${(bytes / 1e6).toFixed(1)} MB, archived in ${(fs.statSync(archive).size / 1e6).toFixed(1)} MB)`);
