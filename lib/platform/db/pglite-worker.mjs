// The embedded database's own thread (lib/platform/db/pglite-thread.ts starts it).
//
// PGlite is PostgreSQL compiled to WebAssembly: in the server's thread every
// statement it runs stops everything else that thread does (answering the
// ingress, /healthz, a shutdown signal). Here it runs on a thread of its own,
// so the server's thread only sends statements and reads their results.
//
// Plain JavaScript, loaded from disk by Node as it is: a worker gets no
// bundler and no TypeScript loader. Messages come from the one client in the
// server's thread, one at a time, and are answered in order:
//   { id, op: 'query', sql, params }   -> { fields, rows, affectedRows }
//   { id, op: 'exec', sql }            -> [{ fields, rows, affectedRows }, ...]
//   { id, op: 'dump', compression }    -> ArrayBuffer (a tar of the data folder)
//   { id, op: 'close' }                -> null
// Values in rows are PostgreSQL's text, unparsed: the client parses them with
// the parsers its caller asked for (functions cannot cross threads).
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { extract } from 'tar';
import { PGlite, messages, types } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

const { dataDir, sessionSql, loadDataDir, template } = workerData;

// template: the npm package's new database (scripts/pack/embedded-template.mjs:
// PGlite's dump of a folder with every migration applied, a gzipped tar of the
// data folder). A folder that holds nothing yet becomes a copy of it instead
// of running initdb and every migration, which took 5 of the 9 s to a new
// instance's first page
// (docs/decisions/0088-a-new-embedded-database-starts-from-the-package-template.md).
// It is unpacked as files, and PGlite then opens an existing database: loading
// it through PGlite (loadDataDir) unpacks it inside the WebAssembly heap,
// which grew by about 130 MB for good. The copy is whole or absent: unpacked
// beside the folder, then renamed into its place. A folder that holds a
// database is opened as it is; migrations then run as always.
//
// Its folders are 0700 and its files 0600, whatever the archive says and
// whatever the umask (lib/platform/private-files.ts): the copy holds the
// database that will hold password hashes and every delivery.
function startFromTemplate() {
  if (!dataDir || !template || !fs.existsSync(template)) return null;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // A database, or files of someone else's: PGlite decides, as without a template.
  if (fs.readdirSync(dataDir).length > 0) return null;
  const parent = path.dirname(path.resolve(dataDir));
  const prefix = `${path.basename(path.resolve(dataDir))}.template-`;
  const partial = path.join(parent, `${prefix}${process.pid}`);
  let damaged;
  try {
    // The folder's lock is held: no other process is unpacking here; any such folder is a killed start's.
    for (const name of fs.readdirSync(parent)) if (name.startsWith(prefix)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    fs.mkdirSync(partial, { mode: 0o700 });
    // PGlite names its entries from the root (/PG_VERSION): tar says it strips the /, and nothing else is tolerated.
    const problems = [];
    extract({
      file: template,
      cwd: partial,
      sync: true,
      dmode: 0o700,
      fmode: 0o600,
      // Each entry's own mode, replaced before it is written (this runs ahead of the extraction's own listener).
      onReadEntry: (entry) => {
        entry.mode = entry.type === 'Directory' ? 0o700 : 0o600;
      },
      onwarn: (code, message) => code !== 'TAR_ENTRY_INFO' && problems.push(`${code}: ${message}`),
    });
    if (problems.length > 0 || !fs.existsSync(path.join(partial, 'PG_VERSION'))) {
      damaged = new Error(`the database template ${template} is damaged: ${problems[0] ?? 'no PG_VERSION'}`);
      throw damaged;
    }
    fs.rmdirSync(dataDir);
    fs.renameSync(partial, dataDir);
    return { blob: undefined, from: 'template' };
  } catch (error) {
    if (error === damaged) throw error;
    // The folder cannot be replaced (a mount point, a symbolic link, a parent
    // that is not writable): PGlite loads the template itself, inside its
    // heap. The same database, for more memory.
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    return { blob: new Blob([fs.readFileSync(template)]), from: 'template' };
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
}
const start = loadDataDir ? { blob: new Blob([loadDataDir]), from: 'dump' } : (startFromTemplate() ?? { blob: undefined, from: null });

// The extensions the migrations create: the same list as lib/platform/db/pglite-extensions.ts.
// (Options in one object: PGlite ignores a second argument when the first is not a folder.)
// loadDataDir: a dump of a data folder (the 'dump' op's tar) to start from instead of a new one.
// shared_buffers: PostgreSQL's default 128 MB lives inside the WebAssembly
// heap, which never shrinks, and wal_buffers follows it (1/32). 32 MB holds
// the ingress's working set (the hot rows and indexes of webhooks, deliveries
// and runs); the rest is read through the operating system's page cache, as
// PostgreSQL does. Measured with bench/memory.mjs (docs/benchmarks.md).
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

const pg = new PGlite({
  dataDir: dataDir ?? undefined,
  startParams: START_PARAMS,
  extensions: { btree_gin, pg_trgm },
  loadDataDir: start.blob,
});

/** Every type the database would parse, left as text. */
let raw = {};
const ready = (async () => {
  await pg.waitReady;
  if (sessionSql) await pg.exec(sessionSql);
  const keep = (text) => text;
  raw = Object.fromEntries([...Object.keys(types.parsers), ...Object.keys(pg.parsers)].map((oid) => [oid, keep]));
})();

const unparsed = (result) => ({ fields: result.fields, rows: result.rows, affectedRows: result.affectedRows ?? 0 });

const ops = {
  query: async ({ sql, params }) => unparsed(await pg.query(sql, params, { rowMode: 'array', parsers: raw })),
  exec: async ({ sql }) => (await pg.exec(sql, { rowMode: 'array', parsers: raw })).map(unparsed),
  dump: async ({ compression }) => {
    const blob = await pg.dumpDataDir(compression);
    return blob.arrayBuffer();
  },
  close: async () => {
    await pg.close();
    return null;
  },
};

/**
 * An error as data. A database error keeps every field PostgreSQL sent (code,
 * detail, constraint...), without what PGlite adds of the call (the query,
 * its parameters and options: the client has them, and options hold functions).
 */
function describe(error) {
  if (error instanceof messages.DatabaseError) {
    const fields = Object.entries(error).filter(([key, value]) => !['query', 'params', 'queryOptions'].includes(key) && typeof value !== 'function');
    return { database: { ...Object.fromEntries(fields), message: error.message, name: error.name } };
  }
  return { message: error instanceof Error ? error.message : String(error), name: error instanceof Error ? error.name : 'Error' };
}

function post(message) {
  const transfer = message.result instanceof ArrayBuffer ? [message.result] : [];
  parentPort.postMessage(message, transfer);
}

ready.then(
  () => post({ id: 0, result: { startedFrom: start.from } }),
  (error) => post({ id: 0, error: describe(error) }),
);

// One statement at a time, in the order sent; a database that failed to open fails every call.
let queue = Promise.resolve();
parentPort.on('message', (message) => {
  queue = queue
    .then(async () => {
      await ready;
      return ops[message.op](message);
    })
    .then(
      (result) => post({ id: message.id, result }),
      (error) => post({ id: message.id, error: describe(error) }),
    );
});
