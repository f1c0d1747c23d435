import 'server-only';
import { getDatabase } from '@/lib/db';
import { prepareDatabase } from '@/lib/db/prepare';
import { deleteExpiredSessions } from '@/lib/auth/sessions';
import { pruneDeliveries } from '@/lib/deliveries/retention';
import { syncAllRepositories } from '@/lib/definitions/repository';
import { moveRepositoryCredentials } from '@/lib/definitions/repository-credentials';
import { env } from '@/lib/env';
import { pruneRuns } from '@/lib/runs/retention';
import { startWorkers } from '@/lib/runs/worker';

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
    const moved = await moveRepositoryCredentials(database.prisma);
    if (moved > 0) log(`moved the credentials of ${moved} repository URL${moved === 1 ? '' : 's'} into encrypted storage`);
  } catch (error) {
    console.error(`[tripline] cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  log(`ingress URLs use ${env().baseUrl}`);

  every(HOUR, 'session cleanup', () => deleteExpiredSessions());
  every(HOUR, 'delivery retention', () => pruneDeliveries());
  every(HOUR, 'run retention', () => pruneRuns(env().runRetentionDays));
  // Repository-backed factories apply new commits of their production branch.
  // Every instance checks; the factory row lock makes one apply each commit.
  const syncInterval = env().repositorySyncInterval;
  if (syncInterval > 0) every(syncInterval * 1000, 'repository sync', () => syncAllRepositories(log));

  const { executor, runWorkers } = env();
  if (executor.kind === 'none') log('no run executor is configured: runs stay queued (see TRIPLINE_RUN_COMMAND, TRIPLINE_RUN_HTTP_URL)');
  else if (runWorkers === 0) log(`runs are executed elsewhere (TRIPLINE_RUN_WORKERS=0)`);
  else {
    startWorkers(executor, runWorkers, { log });
    log(`${runWorkers} run worker${runWorkers === 1 ? '' : 's'} started (${executor.kind} executor)`);
  }

  // Close the embedded database cleanly so its files are consistent on disk.
  const shutdown = () => {
    database.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
