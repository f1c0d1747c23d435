// The retention job for bench/limits.mjs, in its own process against
// DATABASE_URL, with the clock at argv[2] (the fill's anchor): prints
// { deleted, seconds } as JSON. Run with --conditions=react-server --import tsx.
// BENCH_PRUNE_BATCH and BENCH_PRUNE_REST try other batch sizes and rests than
// the job's own (lib/deliveries/retention.ts).
import { openDatabase } from '@/lib/db';
import { pruneDeliveries } from '@/lib/deliveries/retention';

const url = process.env.DATABASE_URL;
if (!url || !process.argv[2]) throw new Error('usage: DATABASE_URL=... limits-prune.ts <ISO time>');
const database = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
try {
  const started = performance.now();
  const batch = process.env.BENCH_PRUNE_BATCH ? Number(process.env.BENCH_PRUNE_BATCH) : undefined;
  const restRatio = process.env.BENCH_PRUNE_REST ? Number(process.env.BENCH_PRUNE_REST) : undefined;
  const deleted = await pruneDeliveries(database.prisma, new Date(process.argv[2]), { batch, restRatio });
  process.stdout.write(JSON.stringify({ deleted, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) }));
} finally {
  await database.close();
}
