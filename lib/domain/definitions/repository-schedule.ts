import 'server-only';
import { prisma } from '@/lib/platform/db';
import { syncRepository } from '@/lib/domain/definitions/repository';
import { syncRunning } from '@/lib/domain/definitions/repository-limits';
import { env } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import { log } from '@/lib/platform/log';

// The periodic check of repository-backed factories (docs/definitions.md,
// Periodic check). A fetch may take up to a minute (a slow or hostile git
// server, a host that never answers), so one factory's repository must not
// hold the others' checks: a few factories are checked at once, and a factory
// whose repository cannot be fetched is checked less and less often while it
// fails (its failure is already recorded and shown; checking it every minute
// changes nothing). So is one whose commit applied but whose connection steps
// failed (a revoked token, the provider's API down): each retry calls the
// provider and puts a new secret on the webhook for the moment of the call.
// Sync now and Check in Settings are never held back.

/** Factories checked at once: a repository that takes its whole minute holds one of these, not the rest. */
export const SYNC_CONCURRENCY = 4;
/** The longest a failing repository waits between periodic checks. */
export const SYNC_BACKOFF_MAX_MS = 60 * 60_000;

/** Failures in a row of this instance's periodic checks, by factory, and when each is due again. */
const backoff = new Map<string, { failures: number; dueAt: number }>();

/**
 * One periodic check: every repository-backed factory that is due, SYNC_CONCURRENCY at a time. A
 * factory already syncing is skipped. One whose fetch failed skips the checks of one interval more
 * for each failure in a row (1, 2, 4 ... intervals, up to SYNC_BACKOFF_MAX_MS). It is due again at
 * once when its stored fetch failure is gone: a fetch that worked (here, on another instance, or an
 * admin's Sync now), or a new location.
 */
export async function syncAllRepositories(report: (line: string) => void = (line) => log('repositories').info(line), now: () => number = Date.now): Promise<void> {
  // Times count from the check's start, as its timer does: a fetch that took its minute must not push the next turn back.
  const startedAt = now();
  const factories = await prisma.factory.findMany({ where: { configSource: 'repository' }, select: { id: true, slug: true, lastApplyError: true }, orderBy: { id: 'asc' } });
  const failing = new Set(factories.filter((factory) => retriedLess(factory.lastApplyError)).map((factory) => factory.id));
  for (const id of backoff.keys()) if (!failing.has(id)) backoff.delete(id);
  const due = factories.filter((factory) => (backoff.get(factory.id)?.dueAt ?? 0) <= startedAt);
  const intervalMs = Math.max(1, env().repositorySyncInterval) * 1000;
  const failed = (factoryId: string) => {
    const failures = (backoff.get(factoryId)?.failures ?? 0) + 1;
    backoff.set(factoryId, { failures, dueAt: startedAt + Math.min(intervalMs * 2 ** (failures - 1), SYNC_BACKOFF_MAX_MS) });
  };

  const check = async (factory: { id: string; slug: string }) => {
    try {
      const result = await syncRepository(factory.id, { by: { kind: 'schedule' } });
      if (result.status === 'failed' && retriedLess(result.failure)) failed(factory.id);
      else backoff.delete(factory.id);
      if (result.status === 'applied') report(`${factory.slug}: applied ${result.commit.slice(0, 12)}`);
      if (result.status === 'failed') report(`${factory.slug}: ${result.failure.message}`);
    } catch (error) {
      if (error instanceof AppError && error.message === syncRunning().message) return;
      failed(factory.id);
      report(`${factory.slug}: repository check failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < due.length) await check(due[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(SYNC_CONCURRENCY, due.length) }, worker));
}

/**
 * Whether a factory's failure (as syncOnce records it) is one the periodic check retries less and
 * less often: a fetch's (no commit was read), or a commit's connection steps alone. A commit whose
 * files have problems is read again every interval: the fix is a new commit, applied at once.
 */
function retriedLess(stored: unknown): boolean {
  if (typeof stored !== 'object' || stored === null) return false;
  const failure = stored as { commit?: unknown; problems?: Array<{ key?: string }> };
  if (failure.commit === null) return true;
  return Array.isArray(failure.problems) && failure.problems.length > 0 && failure.problems.every((problem) => problem.key === 'connection');
}

/** Tests: forget every factory's failures. */
export function resetRepositoryBackoff(): void {
  backoff.clear();
}
