// Runs `prisma generate` without downloading Prisma's native engines: the
// Prisma 7 client is engine-free, and generate only checks that a schema
// engine file exists, so we point it at this script. Migrations use the
// WebAssembly schema engine instead (lib/platform/db/migrate.ts).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const result = spawnSync('npx', ['prisma', 'generate'], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
process.exit(result.status ?? 1);
