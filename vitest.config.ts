import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { ONE_SHOT_FLAGS } from './cli/one-shot-flags.ts';
import { budget, ensureSpeedFactor } from './scripts/speed.mjs';

// Timeouts are budgets set on machine C, scaled by the speed factor that npm
// test measured at its start (scripts/speed.mjs; measured here when unset).
ensureSpeedFactor();

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // Server-only modules are plain Node modules under test.
      'server-only': path.resolve(import.meta.dirname, 'tests/support/empty.ts'),
    },
  },
  test: {
    include: ['lib/**/*.test.ts', 'components/**/*.test.ts', 'cli/**/*.test.ts', 'app/**/*.test.ts', 'tests/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // The command line bundled once for the tests that run it as a process (tests/support/bundle.ts).
    globalSetup: ['tests/support/global-setup.ts'],
    // Fixed configuration: tests never read the developer's keys or data folder.
    env: {
      TRIPLINE_BASE_URL: 'http://localhost:3000',
      TRIPLINE_DATA_DIR: path.join(os.tmpdir(), `tripline-vitest-${process.pid}`),
      TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
      TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
      // Tests provoke failures on purpose; their expected warnings would bury the report.
      TRIPLINE_LOG_LEVEL: 'error',
    },
    testTimeout: budget(60_000),
    hookTimeout: budget(120_000),
    // expect.poll's own default is one second, too short for a slow machine.
    expect: { poll: { timeout: budget(5_000) } },
    // Three files at a time: each integration file creates its own databases
    // (a PGlite of its own, a PostgreSQL database of its own), and much of a
    // file's time is waiting (locks, timers, child processes), which the
    // other files fill. On 2 cores (2026-11-30, the whole suite alone): 219 s
    // with two workers, 183 s with three, 180 s with four.
    fileParallelism: true,
    maxWorkers: 3,
    // Each file runs in a fresh process, and most open an embedded database:
    // WebAssembly on V8's baseline compiler only, as the one-shot commands
    // run it (cli/engine-flags.ts): optimizing PGlite's code in the background
    // cost each such file about 3.5 CPU-s and 500 MB that its short life never
    // paid back (docs/testing.md).
    execArgv: ONE_SHOT_FLAGS,
  },
});
