// The npm package's new embedded database: `node scripts/pack/embedded-template.mjs <dist>`
// (the end of scripts/pack.mjs).
//
// A new instance's first start spent 5 of its 9 s to the first page on
// PGlite's initdb (3.5 s, a WebAssembly program of its own) and on applying
// every migration. Both give the same result on every machine, so the pack
// does them once: the package's own command line (`tripline migrate deploy`)
// migrates a new database in a scratch folder, and its dump becomes
// dist/app/prisma/embedded-template.tar.gz. The embedded database's thread
// starts a folder that holds no database from it (lib/platform/db/pglite-worker.mjs);
// any migration the template lacks still runs at start, as always.
// docs/decisions/0088-a-new-embedded-database-starts-from-the-package-template.md
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = path.resolve(process.argv[2] ?? 'dist');
const app = path.join(dist, 'app');
const template = path.join(app, 'prisma', 'embedded-template.tar.gz');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tripline-template-'));

try {
  fs.rmSync(template, { force: true });
  // The command line as the package's launcher runs it (scripts/pack/tripline.mjs), on the app
  // folder before it is archived, and on the embedded database with no keys, whatever the packing
  // shell's environment names: nothing of the packer's instance goes into every user's database.
  const env = { ...process.env, TRIPLINE_APP_DIR: app, TRIPLINE_DATA_DIR: path.join(scratch, '.data') };
  for (const name of ['DATABASE_URL', 'TRIPLINE_SECRETS_KEY', 'TRIPLINE_AUTH_SECRET']) delete env[name];
  const migrate = spawnSync(process.execPath, [path.join(app, 'cli.mjs'), 'migrate', 'deploy'], { cwd: scratch, env, encoding: 'utf8' });
  if (migrate.status !== 0) throw new Error(`tripline migrate deploy failed (${migrate.status}):\n${migrate.stdout}${migrate.stderr}`);

  // The package's own PGlite and extensions, as the worker opens them.
  const pglite = path.join(app, 'node_modules', '@electric-sql', 'pglite', 'dist');
  const { PGlite } = await import(pathToFileURL(path.join(pglite, 'index.js')).href);
  const { btree_gin } = await import(pathToFileURL(path.join(pglite, 'contrib', 'btree_gin.js')).href);
  const { pg_trgm } = await import(pathToFileURL(path.join(pglite, 'contrib', 'pg_trgm.js')).href);
  const database = new PGlite({ dataDir: path.join(scratch, '.data', 'pglite'), extensions: { btree_gin, pg_trgm } });
  await database.waitReady;
  const { rows } = await database.query('SELECT count(*)::int AS applied FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL');
  // Everything is on disk in the data files, so starting from it replays no WAL.
  await database.exec('CHECKPOINT');
  const dump = await database.dumpDataDir('gzip');
  await database.close();
  fs.writeFileSync(template, Buffer.from(await dump.arrayBuffer()));
  console.log(`[pack] embedded database template: ${rows[0].applied} migrations, ${(dump.size / 1e6).toFixed(1)} MB`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
