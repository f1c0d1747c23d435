// The server's own V8 settings, applied before anything else loads. Imported
// first by the server entry (server.ts), so `npm start`, `node
// scripts/serve.mjs`, `npm run dev` and the npm package's `tripline start`
// all get them.
//
// V8 sizes its young generation for the machine (on Node.js 24 it grows to
// 64 MB: two semi-spaces of 32 MB). Under a steady load of deliveries, that
// and the old generation it feeds were most of the server's resident memory
// (docs/benchmarks.md, Memory). Measured at 200 deliveries/s for 90 s, peak
// resident memory by the semi-space's cap:
//
//                      32 MB (V8)   16 MB   8 MB   4 MB
//   embedded database    903 MB    684 MB  664 MB  615 MB
//   PostgreSQL           568 MB    477 MB  446 MB  406 MB
//
// A smaller young generation costs the ingress CPU at full load (more
// collections, more objects promoted). The embedded database, the default
// for small machines, gets 4 MB: its thread, not the server's, bounds its
// throughput. PostgreSQL, for larger ones, gets 16 MB.
//
// The old generation: under load, after a full collection left about 75 MB
// alive, V8 let the heap grow to 300 MB before the next one (it grows by up
// to 4 times what survived when collections are fast). Capped at 1.5 times
// (--heap-growing-percent=50), the peak at 200 deliveries/s fell from 611-639
// to 462 MB on the embedded database and from 477-497 to 294 MB on
// PostgreSQL, for 3-5% of the ingress's throughput at full load.
//
// Heap sizes are fixed when the process starts and cannot be changed from
// inside it (nor can malloc's settings, below), so the entry replaces its own
// process (same pid, same stdio, same arguments) with one started with the flags. An operator's own
// --max-semi-space-size (command line or NODE_OPTIONS) is left alone, and so
// is a Node.js without process.execve (Windows; 22.12 to 22.14), which runs
// with V8's default. The database is PostgreSQL when DATABASE_URL is set in
// the environment (as lib/platform/env.ts reads it).

/** Whether the operator set the flag (command line or NODE_OPTIONS; V8 takes `_` for `-`). */
function operatorSet(name) {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((flag) => flag.replaceAll('_', '-'));
  return given.some((flag) => flag === name || flag.startsWith(`${name}=`));
}

const flags = [
  ['--max-semi-space-size', process.env.DATABASE_URL ? 16 : 4],
  // After a full collection V8 lets the old generation grow to up to 4 times
  // what survived (by its speed); 50 caps that at 1.5 times.
  ['--heap-growing-percent', 50],
]
  .filter(([name]) => !operatorSet(name))
  .map(([name, value]) => `${name}=${value}`);

// glibc's malloc, read when a process starts, so it goes with the restart;
// an operator's own setting is kept, and other C libraries ignore both.
// - Arenas: malloc gives each thread that allocates (the server's, the
//   embedded database's, libuv's and V8's helpers) an arena of its own, up to
//   8 per core, and each keeps what it grew to. On the embedded database
//   (memory first, as above) two arenas: idle 335-352 MB instead of
//   366-380 MB; the ingress benchmark showed no difference beyond its noise.
// - Where large blocks come from: by default malloc raises the size from
//   which a block gets pages of its own (128 kB) to the largest block freed
//   so far, up to 32 MB. Startup frees large blocks (WebAssembly binaries as
//   they are compiled), so later large blocks came from the arenas, and the
//   arenas kept them when they were freed: on the embedded database about
//   75 MB of free memory stayed resident. Fixed at 128 kB, a large block's
//   pages go back to the system when it is freed: idle 279-291 MB instead of
//   327-349 MB; on PostgreSQL 158 MB instead of 159-169 MB (docs/decisions/0093).
const malloc = Object.entries({
  MALLOC_ARENA_MAX: process.env.DATABASE_URL ? undefined : '2',
  MALLOC_MMAP_THRESHOLD_: String(128 * 1024),
}).filter(([name, value]) => value !== undefined && !process.env[name]);

if ((flags.length > 0 || malloc.length > 0) && typeof process.execve === 'function' && process.platform !== 'win32') {
  process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...Object.fromEntries(malloc) });
}
