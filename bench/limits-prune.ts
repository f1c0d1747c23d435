// The retention job for bench/limits.mjs, in its own process against
// DATABASE_URL, with the clock at argv[2] (the fill's anchor, or up to a day
// before it with BENCH_PRUNE_HOURS in bench/limits.mjs): prints
// { deleted, seconds } as JSON. Run with --conditions=react-server --import tsx.
// It loads, connects and writes "ready" to stderr, then waits for a line on
// stdin before it starts: the server runs the job in its own warm process,
// and a cold start (compiling TypeScript, loading the client) takes the
// shared cores for a few seconds the job itself does not.
// BENCH_PRUNE_BATCH and BENCH_PRUNE_REST try other batch sizes and rests than
// the job's own (lib/domain/deliveries/retention.ts).
import { once } from 'node:events';
import { openDatabase } from '@/lib/platform/db';
import { pruneDeliveries } from '@/lib/domain/deliveries/retention';

const url = process.env.DATABASE_URL;
if (!url || !process.argv[2]) throw new Error('usage: DATABASE_URL=... limits-prune.ts <ISO time>');
const database = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
try {
  await database.prisma.$queryRawUnsafe('SELECT 1');
  process.stderr.write('ready\n');
  await once(process.stdin, 'data');
  const started = performance.now();
  const batch = process.env.BENCH_PRUNE_BATCH ? Number(process.env.BENCH_PRUNE_BATCH) : undefined;
  const restRatio = process.env.BENCH_PRUNE_REST ? Number(process.env.BENCH_PRUNE_REST) : undefined;
  const deleted = await pruneDeliveries(database.prisma, new Date(process.argv[2]), { batch, restRatio });
  process.stdout.write(JSON.stringify({ deleted, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) }));
} finally {
  await database.close();
}
