// Runs `prisma generate` without downloading Prisma's native engines: the
// Prisma 7 client is engine-free, and generate only checks that a schema
// engine file exists, so we point it at this script. Migrations use the
// WebAssembly schema engine instead (lib/platform/db/migrate.ts).
//
// Then the generated client loads its query compiler from a binary file
// (scripts/query-compiler.mjs) instead of Prisma's base64 module.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadQueryCompilerFromFile } from './query-compiler.mjs';

const result = spawnSync('npx', ['prisma', 'generate'], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
if (result.status !== 0) process.exit(result.status ?? 1);
await loadQueryCompilerFromFile();
