// `npm start`: generate the Prisma client and build when the sources changed
// since the last build, then serve through Tripline's own server entry
// (server.ts: the client's real address, graceful shutdown), in this process.
// Migrations run inside the server at start (instrumentation.ts).
// `node scripts/serve.mjs` serves an existing build the same way.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildIsCurrent, sourceStamp, writeStamp } from './build-stamp.mjs';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode();

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
process.env.NEXT_TELEMETRY_DISABLED = '1';

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!fs.existsSync('lib/generated/prisma/client.ts') || process.argv.includes('--generate')) {
  run(process.execPath, ['scripts/prisma-generate.mjs']);
}

if (!buildIsCurrent()) {
  console.log('[tripline] building the app (first start or changed sources)...');
  const stamp = sourceStamp();
  run(process.execPath, ['node_modules/next/dist/bin/next', 'build']);
  writeStamp(stamp);
}

await import('./serve.mjs');
