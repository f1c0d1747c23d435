import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appFolder } from './unpack.mjs';

// The npm package's app archive, unpacked on a version's first run
// (scripts/pack/unpack.mjs), on a small archive made as scripts/pack.mjs makes it.

let dist: string;
let cache: string;
const savedCache = process.env.XDG_CACHE_HOME;

async function pack(files: Record<string, string>, id: string): Promise<void> {
  const app = path.join(dist, 'app');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(app, name)), { recursive: true });
    fs.writeFileSync(path.join(app, name), text);
  }
  await tar.create({ gzip: true, file: path.join(dist, 'app.tar.gz'), cwd: dist, portable: true }, ['app']);
  fs.rmSync(app, { recursive: true });
  fs.writeFileSync(path.join(dist, 'app.json'), JSON.stringify({ id, files: Object.keys(files).length, bytes: 0 }));
}

const read = (dir: string, name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

beforeEach(() => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-unpack-'));
  dist = path.join(work, 'dist');
  cache = path.join(work, 'cache');
  fs.mkdirSync(dist);
  process.env.XDG_CACHE_HOME = cache;
});

afterEach(() => {
  fs.rmSync(path.dirname(dist), { recursive: true, force: true });
  if (savedCache === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCache;
});

describe('the package’s app folder', () => {
  it('is unpacked beside the archive on the first run, whole, and taken as it is after', async () => {
    await pack({ 'cli.mjs': 'cli', 'node_modules/pkg/index.js': 'module' }, 'v1');
    const app = appFolder(dist);
    expect(app).toBe(path.join(dist, 'app'));
    expect(read(app, 'cli.mjs')).toBe('cli');
    expect(read(app, 'node_modules/pkg/index.js')).toBe('module');
    // No partial folder is left beside it.
    expect(fs.readdirSync(dist).sort()).toEqual(['app', 'app.json', 'app.tar.gz']);

    // The next run does not unpack again: a file changed in the folder stays changed.
    fs.writeFileSync(path.join(app, 'cli.mjs'), 'edited');
    expect(read(appFolder(dist), 'cli.mjs')).toBe('edited');
  });

  it('replaces a folder that was not unpacked whole from this archive', async () => {
    await pack({ 'cli.mjs': 'new' }, 'v2');
    // An app folder without the marker, as a run killed before its rename would never leave, or another layout's.
    fs.mkdirSync(path.join(dist, 'app'));
    fs.writeFileSync(path.join(dist, 'app', 'cli.mjs'), 'stale');
    fs.writeFileSync(path.join(dist, 'app', 'leftover.js'), 'stale');
    const app = appFolder(dist);
    expect(read(app, 'cli.mjs')).toBe('new');
    expect(fs.existsSync(path.join(app, 'leftover.js'))).toBe(false);
  });

  it('removes partial folders that killed runs left, once they are old', async () => {
    await pack({ 'cli.mjs': 'cli' }, 'v3');
    const old = path.join(dist, 'app.partial-1-aaaaaaaa');
    const recent = path.join(dist, 'app.partial-2-bbbbbbbb');
    for (const dir of [old, recent]) fs.mkdirSync(dir);
    const hoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    fs.utimesSync(old, hoursAgo, hoursAgo);
    appFolder(dist);
    // The recent one may be another run's, in progress.
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
  });

  it('fails on a damaged archive, and leaves nothing that a later run would take for whole', async () => {
    await pack({ 'cli.mjs': 'x'.repeat(200_000) }, 'v4');
    const archive = path.join(dist, 'app.tar.gz');
    fs.truncateSync(archive, Math.floor(fs.statSync(archive).size / 2));
    expect(() => appFolder(dist)).toThrow();
    expect(fs.readdirSync(dist).sort()).toEqual(['app.json', 'app.tar.gz']);
  });

  it('gives runs started at once the same whole folder', async () => {
    const files = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`chunks/${index}.js`, `chunk ${index}`]));
    await pack(files, 'v5');
    const script = `import { appFolder } from ${JSON.stringify(path.join(import.meta.dirname, 'unpack.mjs'))};
      const app = appFolder(process.argv[1]);
      const fs = await import('node:fs');
      process.stdout.write(app + ' ' + fs.readdirSync(app + '/chunks').length);`;
    // tar is resolved from the repository's node_modules, as the bundle carries it in the package.
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, dist], { cwd: import.meta.dirname, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (err += chunk));
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
      });
    const results = await Promise.all([run(), run(), run()]);
    expect(results).toEqual(Array(3).fill(`${path.join(dist, 'app')} 300`));
    expect(fs.readdirSync(dist).sort()).toEqual(['app', 'app.json', 'app.tar.gz']);
  });
});
