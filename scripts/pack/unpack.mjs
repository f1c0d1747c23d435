// The npm package's app folder, unpacked on the first run of a version
// (scripts/pack.mjs bundles this file, with node-tar, into dist/unpack.mjs).
//
// The package carries its app (the build, the packages the server loads, the
// migrations: about 2,500 files) as one archive, dist/app.tar.gz. npm writes
// a package's every file to disk up to three times when it installs a tarball
// (`npx <tarball>` and `npm install <tarball>` unpack it once only to read its
// package.json), which took 10 s for 2,900 files on a 2-core machine; one
// archive takes it well under a second, and unpacking it here takes 1-2 s,
// once (docs/decisions/0089-the-npm-package-unpacks-its-app-on-first-run.md).
//
// Where: dist/app beside the archive, so that `npm uninstall` and an upgrade
// take it with the package; when the package's folder is not writable (a
// global install by another user), $XDG_CACHE_HOME/tripline/app-<id> (or
// ~/.cache/...), one folder per archive. A folder counts only once it holds
// every file: it is unpacked under another name and renamed into place, so a
// run killed halfway leaves nothing that a later run would take for whole.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { extract } from 'tar';

const MARKER = '.tripline-unpacked';
const PARTIAL = '.partial-';
// A partial folder this old is left over from a killed run, not one in progress.
const STALE_PARTIAL_MS = 60 * 60_000;

/** The archive's identity, written at pack time: { id, files, bytes }. */
function readManifest(dist) {
  return JSON.parse(fs.readFileSync(path.join(dist, 'app.json'), 'utf8'));
}

function isUnpacked(dir, id) {
  try {
    return fs.readFileSync(path.join(dir, MARKER), 'utf8') === id;
  } catch {
    return false;
  }
}

function cacheFolder(id) {
  const home = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(home, 'tripline', `app-${id}`);
}

const cannotWrite = (error) => ['EACCES', 'EPERM', 'EROFS'].includes(error?.code);

function removeStalePartials(target) {
  const parent = path.dirname(target);
  const prefix = `${path.basename(target)}${PARTIAL}`;
  for (const name of fs.readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const dir = path.join(parent, name);
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > STALE_PARTIAL_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another run removed it, or it cannot be: it is only a leftover.
    }
  }
}

function unpackInto(archive, target, id) {
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const partial = `${target}${PARTIAL}${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  fs.mkdirSync(partial, { mode: 0o755 });
  try {
    // strip: the archive's entries are app/...; strict: a damaged archive fails here, not at run time.
    extract({ file: archive, cwd: partial, strip: 1, strict: true, sync: true });
    fs.writeFileSync(path.join(partial, MARKER), id);
    try {
      fs.renameSync(partial, target);
    } catch (error) {
      // Another run of the same version got there first: its folder is as good.
      if (!['ENOTEMPTY', 'EEXIST'].includes(error.code) || !isUnpacked(target, id)) throw error;
    }
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
  removeStalePartials(target);
}

/**
 * The app folder of the package in `dist`: unpacked already, or unpacked now
 * (with a line on stderr, since it takes a moment). Throws when no folder
 * can be written.
 */
export function appFolder(dist) {
  const { id } = readManifest(dist);
  const beside = path.join(dist, 'app');
  const cached = cacheFolder(id);
  for (const dir of [beside, cached]) if (isUnpacked(dir, id)) return dir;

  const archive = path.join(dist, 'app.tar.gz');
  const started = Date.now();
  for (const target of [beside, cached]) {
    try {
      // Another run may have finished meanwhile. A folder without the marker
      // was never renamed into place whole (an older layout, or damaged): replaced.
      if (fs.existsSync(target)) {
        if (isUnpacked(target, id)) return target;
        fs.rmSync(target, { recursive: true, force: true });
      }
      unpackInto(archive, target, id);
      process.stderr.write(`tripline: unpacked this version's app into ${target} (${((Date.now() - started) / 1000).toFixed(1)} s, once)\n`);
      return target;
    } catch (error) {
      if (target === cached || !cannotWrite(error)) throw error;
    }
  }
  throw new Error('unreachable');
}
