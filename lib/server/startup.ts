import 'server-only';
import { getDatabase } from '@/lib/db';
import { prepareDatabase } from '@/lib/db/prepare';
import { deleteExpiredSessions } from '@/lib/auth/sessions';
import { pruneDeliveries } from '@/lib/deliveries/retention';
import { syncAllRepositories } from '@/lib/definitions/repository';
import { env } from '@/lib/env';

// Server start: every instance applies pending migrations (the schema engine
// serialises concurrent instances with an advisory lock, as Prisma Migrate
// does), checks its keys, then starts periodic housekeeping.

const HOUR = 60 * 60 * 1000;

function every(intervalMs: number, name: string, job: () => Promise<unknown>): void {
  const timer = setInterval(() => {
    job().catch((error: unknown) => console.error(`[tripline] ${name} failed:`, error));
  }, intervalMs);
  timer.unref();
}

export async function startServer(): Promise<void> {
  const log = (line: string) => console.log(`[tripline] ${line}`);
  let database;
  try {
    env();
    database = getDatabase();
    await prepareDatabase(database, log);
  } catch (error) {
    console.error(`[tripline] cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  log(`ingress URLs use ${env().baseUrl}`);

  every(HOUR, 'session cleanup', () => deleteExpiredSessions());
  every(HOUR, 'delivery retention', () => pruneDeliveries());
  // Repository-backed factories apply new commits of their production branch.
  // Every instance checks; the factory row lock makes one apply each commit.
  const syncInterval = env().repositorySyncInterval;
  if (syncInterval > 0) every(syncInterval * 1000, 'repository sync', () => syncAllRepositories(log));

  // Close the embedded database cleanly so its files are consistent on disk.
  const shutdown = () => {
    database.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
