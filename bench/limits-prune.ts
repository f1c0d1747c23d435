// The retention job for bench/limits.mjs, in its own process against
// DATABASE_URL, with the clock at argv[2] (the fill's anchor): prints
// { deleted, seconds } as JSON. Run with --conditions=react-server --import tsx.
import { openDatabase } from '@/lib/db';
import { pruneDeliveries } from '@/lib/deliveries/retention';

const url = process.env.DATABASE_URL;
if (!url || !process.argv[2]) throw new Error('usage: DATABASE_URL=... limits-prune.ts <ISO time>');
const database = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
try {
  const started = performance.now();
  const deleted = await pruneDeliveries(database.prisma, new Date(process.argv[2]));
  process.stdout.write(JSON.stringify({ deleted, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) }));
} finally {
  await database.close();
}
