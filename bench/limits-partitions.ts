// The delivery log's day partitions for bench/limits.mjs: makes those of
// argv[3] days from argv[2] (YYYY-MM-DD) against DATABASE_URL with the app's
// own function (lib/deliveries/partitions.ts), so a generated past log has
// its days' partitions as a live one would. Run with --conditions=react-server --import tsx.
import { openDatabase } from '@/lib/db';
import { ensureDayPartitions } from '@/lib/deliveries/partitions';

const url = process.env.DATABASE_URL;
if (!url || !process.argv[2] || !process.argv[3]) throw new Error('usage: DATABASE_URL=... limits-partitions.ts <from YYYY-MM-DD> <days>');
const database = openDatabase({ kind: 'postgres', url }, { poolSize: 1 });
try {
  const created = await ensureDayPartitions(database.prisma, Number(process.argv[3]), process.argv[2]);
  process.stdout.write(JSON.stringify({ created }));
} finally {
  await database.close();
}
