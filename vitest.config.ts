import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(__dirname),
      // Server-only modules are plain Node modules under test.
      'server-only': path.resolve(__dirname, 'lib/testing/empty.ts'),
    },
  },
  test: {
    include: ['lib/**/*.test.ts', 'cli/**/*.test.ts', 'app/**/*.test.ts', 'tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration files each create their own databases; run files one at a
    // time on this 2-core budget to keep timings steady.
    fileParallelism: false,
  },
});
