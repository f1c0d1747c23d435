import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

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
    // Fixed configuration: tests never read the developer's keys or data folder.
    env: {
      TRIPLINE_BASE_URL: 'http://localhost:3000',
      TRIPLINE_DATA_DIR: path.join(os.tmpdir(), `tripline-vitest-${process.pid}`),
      TRIPLINE_SECRETS_KEY: randomBytes(32).toString('base64'),
      TRIPLINE_AUTH_SECRET: randomBytes(32).toString('base64url'),
      // Tests provoke failures on purpose; their expected warnings would bury the report.
      TRIPLINE_LOG_LEVEL: 'error',
    },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration files each create their own databases; run files one at a
    // time on this 2-core budget to keep timings steady.
    fileParallelism: false,
  },
});
