// `npm start`: generate the Prisma client and build when the sources changed
// since the last build, then serve through Tripline's own server entry
// (server.ts: the client's real address, graceful shutdown), in this process.
// Migrations run inside the server at start (instrumentation.ts).
// `node --import tsx server.ts` serves an existing build the same way.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
process.chdir(root);
process.env.NEXT_TELEMETRY_DISABLED = '1';

const sourceRoots = ['app', 'components', 'lib', 'prisma', 'instrumentation.ts', 'server.ts', 'next.config.mjs', 'postcss.config.mjs', 'package-lock.json', 'tsconfig.json'];

function* files(entry) {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isFile()) {
    yield [entry, stat];
    return;
  }
  for (const name of fs.readdirSync(entry).sort()) {
    if (name === 'generated' || name === 'node_modules' || name.startsWith('.')) continue;
    yield* files(path.join(entry, name));
  }
}

function sourceStamp() {
  const hash = createHash('sha256');
  for (const root of sourceRoots) {
    for (const [file, stat] of files(root)) hash.update(`${file}:${stat.size}:${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!fs.existsSync('lib/generated/prisma/client.ts') || process.argv.includes('--generate')) {
  run(process.execPath, ['scripts/prisma-generate.mjs']);
}

const stampFile = '.next/tripline-source-stamp';
const stamp = sourceStamp();
const previousStamp = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
const built = fs.existsSync('.next/BUILD_ID') && previousStamp === stamp;
if (!built) {
  console.log('[tripline] building the app (first start or changed sources)...');
  run(process.execPath, ['node_modules/next/dist/bin/next', 'build']);
  fs.writeFileSync(stampFile, `${stamp}\n`);
}

const { register } = await import('tsx/esm/api');
register();
await import('../server.ts');
