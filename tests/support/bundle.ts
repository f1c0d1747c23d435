import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

// The command line (and the tests' helper programs), bundled with esbuild
// from the sources as they are now, as the npm package ships it
// (scripts/pack.mjs). A test that runs `tripline` as a process then has Node
// load one file instead of compiling TypeScript through tsx's loader: about
// 1 CPU-s less a call (2.4 against 1.3 CPU-s for a command on PostgreSQL), and
// the tests make about 150 calls. Packages stay external and load from
// node_modules, as under tsx; node runs with the react-server condition.
//
// Built once per test run where the runner's global setup calls
// prepareBundles() (Vitest's tests/support/global-setup.ts, Playwright's
// e2e/global-setup.ts), which names the files in the environment its workers
// inherit; a process without them builds its own on first use.

const root = path.resolve(import.meta.dirname, '../..');

/** The programs the tests run as processes: name, source. */
const ENTRIES = { cli: 'cli/tripline.ts', 'hold-embedded': 'tests/support/hold-embedded.ts' } as const;
type Entry = keyof typeof ENTRIES;

const variable = 'TRIPLINE_TEST_BUNDLES';

function build(): string {
  const outdir = path.join(root, 'test-results', 'bundles', String(process.pid));
  fs.rmSync(outdir, { recursive: true, force: true });
  buildSync({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node22',
    tsconfig: path.join(root, 'tsconfig.json'),
    packages: 'external',
    conditions: ['react-server'],
    logLevel: 'warning',
    banner: { js: "import { createRequire as __tripline_createRequire } from 'node:module'; const require = __tripline_createRequire(import.meta.url);" },
  });
  return outdir;
}

/** Builds the bundles and names their folder in this process's environment, which later processes inherit. */
export function prepareBundles(): string {
  const existing = process.env[variable];
  if (existing && fs.existsSync(path.join(existing, 'cli.mjs'))) return existing;
  const outdir = build();
  process.env[variable] = outdir;
  return outdir;
}

/** The bundled program's file. */
export function bundled(entry: Entry): string {
  return path.join(prepareBundles(), `${entry}.mjs`);
}

/** Node's arguments for `tripline <args>`, run with cwd at the repository's root. */
export const cliArgs = (args: string[]) => ['--conditions=react-server', bundled('cli'), ...args];
