import 'server-only';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { prisma } from '@/lib/db';
import { applyDefinitions, type ApplyOutcome } from '@/lib/definitions/apply';
import { planDefinitions, type Plan } from '@/lib/definitions/plan';
import { WEBHOOKS_DIR, repositorySettingsSchema, type DefinitionFiles, type RepositorySettings } from '@/lib/definitions/schemas';
import { clearApplyFailure, getDefinitionsStatus, recordApplyFailure, type ApplyFailure } from '@/lib/definitions/service';
import { env } from '@/lib/env';
import { AppError } from '@/lib/http/errors';

// Repository-backed factories: the definitions live in a git repository's
// production branch. The real git binary fetches the branch into a bare
// cache repository under $TRIPLINE_DATA_DIR/repositories/ (execFile, never a
// shell: the URL and branch are arguments, validated, and after "--"), and
// the files of the branch's commit apply like any other set of definitions.
//
// Several app instances may check the same factory at once: each fetches
// into its own data folder, and the apply itself runs under the factory row
// lock and plans against the state it finds there, so the second instance
// to apply a commit finds nothing left to change.

const FETCH_TIMEOUT_MS = 120_000;
const GIT_TIMEOUT_MS = 20_000;
const MAX_FILES = 200;

export class RepositoryError extends Error {}

/** Credentials in a URL (https://user:token@host) never reach a message or the dashboard. */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}

function git(args: string[], options: { gitDir?: string; timeout?: number; maxBuffer?: number } = {}): Promise<string> {
  const fullArgs = ['-c', 'protocol.ext.allow=never', ...(options.gitDir ? ['--git-dir', options.gitDir] : []), ...args];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      fullArgs,
      {
        timeout: options.timeout ?? GIT_TIMEOUT_MS,
        maxBuffer: options.maxBuffer ?? 4 * 1024 * 1024,
        encoding: 'utf8',
        // No prompts: a repository that needs a password the server lacks fails instead of hanging.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new RepositoryError('git is not installed on the server'));
        const detail = redactUrl(stderr.trim().split('\n').filter(Boolean).slice(-3).join(' ')) || (error.killed ? 'timed out' : error.message);
        reject(new RepositoryError(detail));
      },
    );
  });
}

/** One fetch at a time per cache repository in this process (git's own ref locks would make a second one fail). */
const queues = new Map<string, Promise<unknown>>();
function serialised<T>(key: string, job: () => Promise<T>): Promise<T> {
  const next = (queues.get(key) ?? Promise.resolve()).then(job, job);
  queues.set(
    key,
    next.catch(() => undefined),
  );
  return next;
}

export type RepositorySnapshot = { commit: string; files: DefinitionFiles };

/** Fetches the branch and reads the definition files of its newest commit. */
export function fetchRepository(settings: RepositorySettings): Promise<RepositorySnapshot> {
  const { url, branch } = repositorySettingsSchema.parse(settings);
  const gitDir = path.join(env().dataDir, 'repositories', createHash('sha256').update(url).digest('hex').slice(0, 24));
  return serialised(gitDir, async () => {
    if (!existsSync(path.join(gitDir, 'HEAD'))) {
      mkdirSync(gitDir, { recursive: true });
      await git(['init', '--bare', '--quiet', gitDir]);
    }
    const ref = `refs/tripline/${branch}`;
    try {
      await git(['fetch', '--quiet', '--no-tags', '--force', '--', url, `+refs/heads/${branch}:${ref}`], { gitDir, timeout: FETCH_TIMEOUT_MS });
    } catch (error) {
      throw new RepositoryError(`Could not fetch branch ${branch}: ${(error as Error).message}`);
    }
    const commit = (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { gitDir })).trim();
    return { commit, files: await readCommitFiles(gitDir, commit) };
  });
}

async function readCommitFiles(gitDir: string, commit: string): Promise<DefinitionFiles> {
  const listing = await git(['ls-tree', '-r', '-z', '--long', commit, '--', `${WEBHOOKS_DIR}/`], { gitDir });
  const entries = listing.split('\0').filter(Boolean);
  if (entries.length === 0) {
    // A branch without the folder is far more likely a wrong branch than a wish to delete every webhook.
    throw new RepositoryError(
      `Commit ${commit.slice(0, 12)} has no ${WEBHOOKS_DIR}/ folder at the root. To delete every webhook, keep an empty ${WEBHOOKS_DIR}/.gitkeep.`,
    );
  }
  if (entries.length > MAX_FILES) throw new RepositoryError(`${WEBHOOKS_DIR}/ holds more than ${MAX_FILES} files`);
  const files: DefinitionFiles = {};
  for (const entry of entries) {
    const tab = entry.indexOf('\t');
    const [, type, object, size] = entry.slice(0, tab).split(/\s+/);
    const file = entry.slice(tab + 1);
    if (type !== 'blob') continue;
    // The parser refuses files over its limit; a huge one is not read at all.
    files[file] = Number(size) > 1024 * 1024 ? 'x'.repeat(1024 * 1024) : await git(['cat-file', 'blob', object!], { gitDir });
  }
  return files;
}

async function repositoryOf(factoryId: string): Promise<RepositorySettings & { appliedCommit: string | null; lastFailure: ApplyFailure | null }> {
  const status = await getDefinitionsStatus(factoryId);
  if (status.configSource !== 'repository' || !status.repoUrl) {
    throw new AppError('conflict', 'This factory is not backed by a git repository');
  }
  return { url: status.repoUrl, branch: status.repoBranch, appliedCommit: status.appliedCommit, lastFailure: status.lastFailure };
}

function fetchFailed(error: unknown): never {
  if (error instanceof RepositoryError) throw new AppError('conflict', error.message);
  throw error;
}

export type RepositoryPreview = { commit: string; plan: Plan; url: string; branch: string };

/** What applying the branch's newest commit would do, without applying it: shown before a sync or a connection. */
export async function previewRepository(factoryId: string, settings?: RepositorySettings): Promise<RepositoryPreview> {
  const target = settings ? repositorySettingsSchema.parse(settings) : await repositoryOf(factoryId);
  const snapshot = await fetchRepository(target).catch(fetchFailed);
  return { commit: snapshot.commit, plan: await planDefinitions(factoryId, snapshot.files), url: target.url, branch: target.branch };
}

/**
 * Makes a factory repository-backed and applies the branch. When the files
 * cannot apply nothing changes, the factory included (it keeps its kind).
 * `expectedCommit` is the commit whose plan the admin saw: a branch that
 * moved since is refused, so what applies is what was shown.
 */
export async function connectRepository(factoryId: string, settings: RepositorySettings, expectedCommit?: string): Promise<ApplyOutcome & { commit: string }> {
  const target = repositorySettingsSchema.parse(settings);
  const snapshot = await fetchRepository(target).catch(fetchFailed);
  checkExpected(snapshot.commit, expectedCommit);
  const outcome = await applyDefinitions(factoryId, snapshot.files, {
    source: 'repository',
    switching: true,
    repository: { ...target, commit: snapshot.commit },
  });
  return { ...outcome, commit: snapshot.commit };
}

function checkExpected(commit: string, expected: string | undefined) {
  if (expected && expected !== commit) {
    throw new AppError('conflict', `The branch moved to ${commit.slice(0, 12)} since you looked: check the plan again.`);
  }
}

export type SyncResult =
  | { status: 'up_to_date'; commit: string }
  | { status: 'applied'; commit: string; outcome: ApplyOutcome & { ok: true } }
  | { status: 'failed'; commit: string | null; failure: Omit<ApplyFailure, 'at'> };

/**
 * Applies the production branch's newest commit when it is not the applied
 * one (or when `force`, e.g. after a missing team secret was created). A
 * failure is recorded on the factory for the dashboard; the webhooks keep
 * serving as they last applied.
 */
export async function syncRepository(factoryId: string, options: { expectedCommit?: string; force?: boolean } = {}): Promise<SyncResult> {
  const repository = await repositoryOf(factoryId);
  let snapshot: RepositorySnapshot;
  try {
    snapshot = await fetchRepository(repository);
  } catch (error) {
    if (!(error instanceof RepositoryError)) throw error;
    return recordFailure(factoryId, repository.lastFailure, { commit: null, message: error.message, problems: [] });
  }
  checkExpected(snapshot.commit, options.expectedCommit);
  const failedBefore = repository.lastFailure?.commit === snapshot.commit;
  if (snapshot.commit === repository.appliedCommit && !options.force && !failedBefore) {
    // Back on the applied commit (a revert, or a fetch that works again): an older failure no longer describes the branch.
    if (repository.lastFailure) await clearApplyFailure(factoryId);
    return { status: 'up_to_date', commit: snapshot.commit };
  }

  const outcome = await applyDefinitions(factoryId, snapshot.files, { source: 'repository', repository: { ...repository, commit: snapshot.commit } });
  if (outcome.ok) return { status: 'applied', commit: snapshot.commit, outcome };
  const count = outcome.plan.problems.length;
  return recordFailure(factoryId, repository.lastFailure, {
    commit: snapshot.commit,
    message: `Commit ${snapshot.commit.slice(0, 12)} did not apply: ${count} ${count === 1 ? 'problem' : 'problems'} in the definition files`,
    problems: outcome.plan.problems,
  });
}

async function recordFailure(factoryId: string, previous: ApplyFailure | null, failure: Omit<ApplyFailure, 'at'>): Promise<SyncResult> {
  // The periodic check retries a failing commit; the record changes only when the failure does.
  const same = previous && previous.commit === failure.commit && previous.message === failure.message && JSON.stringify(previous.problems) === JSON.stringify(failure.problems);
  if (!same) await recordApplyFailure(factoryId, failure);
  return { status: 'failed', commit: failure.commit, failure };
}

/** The periodic check: every repository-backed factory, one after another. */
export async function syncAllRepositories(log: (line: string) => void = (line) => console.log(`[tripline] ${line}`)): Promise<void> {
  const factories = await prisma.factory.findMany({ where: { configSource: 'repository' }, select: { id: true, slug: true } });
  for (const factory of factories) {
    try {
      const result = await syncRepository(factory.id);
      if (result.status === 'applied') log(`${factory.slug}: applied ${result.commit.slice(0, 12)}`);
      if (result.status === 'failed') log(`${factory.slug}: ${result.failure.message}`);
    } catch (error) {
      log(`${factory.slug}: repository check failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
