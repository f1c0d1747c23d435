// Prisma CLI configuration. Only `prisma generate` is used: migrations run
// through the project's own command on the WebAssembly schema engine
// (lib/platform/db/migrate.ts), because the CLI's native engines cannot be downloaded
// on every machine.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
});
