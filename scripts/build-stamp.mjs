// The build's source stamp: `npm start` rebuilds when the sources changed
// since the last build, and `npm test` records the stamp of the build it
// made, so a test that starts `npm start` serves that build as it is.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

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

/** A hash of every source file's path, size and modification time (relative to the working directory). */
export function sourceStamp() {
  const hash = createHash('sha256');
  for (const root of sourceRoots) {
    for (const [file, stat] of files(root)) hash.update(`${file}:${stat.size}:${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const stampFile = () => path.join(process.env.NEXT_DIST_DIR || '.next', 'tripline-source-stamp');

export function buildIsCurrent() {
  const dist = process.env.NEXT_DIST_DIR || '.next';
  const previous = fs.existsSync(stampFile()) ? fs.readFileSync(stampFile(), 'utf8').trim() : '';
  return fs.existsSync(path.join(dist, 'BUILD_ID')) && previous === sourceStamp();
}

export function writeStamp(stamp = sourceStamp()) {
  fs.writeFileSync(stampFile(), `${stamp}\n`);
}
