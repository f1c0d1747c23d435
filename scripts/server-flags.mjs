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
// Heap sizes are fixed when the process starts and cannot be changed from
// inside it, so the entry replaces its own process (same pid, same stdio,
// same arguments) with one started with the flag. An operator's own
// --max-semi-space-size (command line or NODE_OPTIONS) is left alone, and so
// is a Node.js without process.execve (Windows; 22.12 to 22.14), which runs
// with V8's default. The database is PostgreSQL when DATABASE_URL is set in
// the environment (as lib/platform/env.ts reads it).

const SEMI_SPACE = '--max-semi-space-size';

/** Whether the operator set the flag (command line or NODE_OPTIONS; V8 takes `_` for `-`). */
function operatorSet(name) {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((flag) => flag.replaceAll('_', '-'));
  return given.some((flag) => flag === name || flag.startsWith(`${name}=`));
}

if (!operatorSet(SEMI_SPACE) && typeof process.execve === 'function' && process.platform !== 'win32') {
  const flag = `${SEMI_SPACE}=${process.env.DATABASE_URL ? 16 : 4}`;
  process.execve(process.execPath, [process.execPath, flag, ...process.execArgv, ...process.argv.slice(1)], process.env);
}
