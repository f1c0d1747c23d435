// The health half of bench/many-teams.mjs, run by it under `node --conditions=react-server --import tsx`:
// checkWebhookHealth (the rollups, then every webhook's health and transitions, as the server's job
// runs it) over the filled database, twice: the first pass after the load, and the next one.
// The database is DATABASE_URL's, else the embedded one in TRIPLINE_DATA_DIR (the server must be
// stopped for that one: embedded PGlite has one writer). Prints JSON.
import { checkWebhookHealth } from '@/lib/domain/health/monitor';
import { openDatabase } from '@/lib/platform/db';
import { targetFromEnv } from '@/lib/platform/db/adapter';

const database = openDatabase(targetFromEnv({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.TRIPLINE_DATA_DIR! }));
try {
  const seconds: number[] = [];
  for (let i = 0; i < 2; i++) {
    const started = performance.now();
    await checkWebhookHealth(database.prisma);
    seconds.push(Math.round((performance.now() - started) / 10) / 100);
  }
  const webhooks = await database.prisma.webhook.count({ where: { deletedAt: null } });
  console.log(JSON.stringify({ webhooks, firstPassS: seconds[0], nextPassS: seconds[1] }));
} finally {
  await database.close();
}
