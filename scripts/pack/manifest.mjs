// The npm package's package.json: `node scripts/pack/manifest.mjs strip`
// (the end of prepack) and `... restore` (postpack).
//
// npm packs package.json as it is on disk once prepack has run. The clone's
// postinstall (it generates the Prisma client) does nothing in the package,
// which carries its code prebuilt, but npm 11 still lists it on every install
// of the package as a script to review. So it is set aside for the pack and
// put back after; a pack that was interrupted in between is repaired by the
// next one.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const manifest = path.join(root, 'package.json');
const backup = path.join(root, 'node_modules', '.tripline-pack-package.json');

function restore() {
  if (!fs.existsSync(backup)) return;
  fs.writeFileSync(manifest, fs.readFileSync(backup));
  fs.rmSync(backup);
}

const mode = process.argv[2];
if (mode === 'strip') {
  restore();
  const text = fs.readFileSync(manifest, 'utf8');
  const parsed = JSON.parse(text);
  if (parsed.scripts?.postinstall) {
    fs.writeFileSync(backup, text);
    delete parsed.scripts.postinstall;
    fs.writeFileSync(manifest, `${JSON.stringify(parsed, null, 2)}\n`);
  }
} else if (mode === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/pack/manifest.mjs strip|restore');
  process.exit(2);
}
