import 'server-only';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { prisma } from '@/lib/platform/db';
import { applyDefinitions, type ApplyOutcome } from '@/lib/domain/definitions/apply';
import { planDefinitions, type Plan } from '@/lib/domain/definitions/plan';
import { redactUrl } from '@/lib/domain/definitions/redact-url';
import {
  checkRepositoryAccess,
  OPERATOR_ACCESS,
  parseOrRefuse,
  RepositoryError,
  type CheckedRepository,
  type Lookup,
} from '@/lib/domain/definitions/repository-access';
import { decryptRepositoryCredential, encryptRepositoryCredential } from '@/lib/domain/definitions/repository-credentials';
import { GitFailure, gitVersionProblem, runGit, STDERR_LIMIT } from '@/lib/domain/definitions/repository-git';
import { consumeRepositoryCheck, withRepositorySyncLock } from '@/lib/domain/definitions/repository-limits';
import { repositoryOrigin, type RepositoryCredential } from '@/lib/domain/definitions/repository-url';
import { definitionPath, WEBHOOKS_DIR } from '@/lib/domain/webhooks/definition-file';
import { MAX_DEFINITION_BYTES, MAX_DEFINITION_FILES, repositorySettingsSchema, type DefinitionFiles, type DefinitionProblem, type RepositorySettings, type RepositorySettingsInput } from '@/lib/domain/definitions/schemas';
import { clearApplyFailure, recordApplyFailure, type ApplyFailure } from '@/lib/domain/definitions/service';
import { env, type RepositoryAccess } from '@/lib/platform/env';
import { AppError } from '@/lib/platform/http/errors';
import { log } from '@/lib/platform/log';
import { metrics } from '@/lib/platform/metrics';

// Repository-backed factories: the definitions live in a git repository's
// production branch. The real git binary fetches the branch's newest commit
// (shallow, one branch, no tags, blobs over the definition size limit left
// out) into a bare cache repository under $TRIPLINE_DATA_DIR/repositories/,
// and the files of that commit apply like any other set of definitions.
//
// The server makes the connection to a host the requester chose, so every
// fetch passes checkRepositoryAccess (scheme, and every resolved address;
// repository-access.ts), git connects only to the addresses checked, runs
// with an environment of its own (repository-git.ts), within a time and a
// size limit, and what the requester is told is a fixed category, never
// what the host answered. See docs/security.md.
//
// One sync at a time per factory (repository-limits.ts), across instances;
// the apply itself also runs under the factory row lock and plans against
// the state it finds there.

const FETCH_TIMEOUT_MS = 60_000;
const GIT_TIMEOUT_MS = 20_000;
/** What one fetch may write into the cache; a definitions branch is a few kilobytes. */
export const MAX_FETCH_BYTES = 32 * 1024 * 1024;
/**
 * A factory's cache at most, after a fetch: past it, the cache is removed and the next fetch
 * starts afresh (fetches are --depth=1, and nothing prunes what an unchanged ref no longer needs).
 */
export const MAX_CACHE_BYTES = 2 * MAX_FETCH_BYTES;

/** Who asks for a fetch: a dashboard or API user, the operator's CLI, or the periodic sync. */
export type Requester = { kind: 'user'; userId: string } | { kind: 'operator' } | { kind: 'schedule' };

/** What to fetch, with what credential, under which rules. */
export type RepositoryTarget = {
  url: string;
  branch: string;
  credential: RepositoryCredential | null;
  access: RepositoryAccess;
};

export type RepositorySnapshot = { commit: string; files: DefinitionFiles };

const messages = {
  connect: 'Could not connect: the repository could not be reached, or it is not a git repository.',
  auth: 'Authentication required: the repository refused to be read without (other) credentials. For https, put a read-only token in the URL (https://user:token@host/...).',
  timeout: `Timed out: the repository did not answer within ${FETCH_TIMEOUT_MS / 1000} seconds.`,
  tooLarge: `Too large: the branch’s newest commit is more than ${MAX_FETCH_BYTES / 1024 / 1024} MB.`,
  noGit: 'git is not installed on the server',
};

/**
 * Turns a failed git command into the category the requester sees. Only
 * git's last STDERR_LIMIT bytes exist here (cut as they arrived), and only
 * fixed, linear patterns run on them.
 */
export function classifyGitFailure(failure: GitFailure, branch: string): RepositoryError {
  if (failure.kind === 'missing') return new RepositoryError('no_git', messages.noGit);
  if (failure.kind === 'timeout') return new RepositoryError('timeout', messages.timeout);
  if (failure.kind === 'too_large') return new RepositoryError('too_large', messages.tooLarge);
  const stderr = failure.stderr.slice(-STDERR_LIMIT);
  if (/couldn't find remote ref|remote branch \S+ not found/i.test(stderr)) {
    return new RepositoryError('branch', `Branch not found: the repository has no branch ${branch}.`);
  }
  if (/authentication failed|could not read (username|password)|terminal prompts disabled|permission denied \(|returned error: 40[13]|access denied/i.test(stderr)) {
    return new RepositoryError('auth', messages.auth);
  }
  return new RepositoryError('connect', messages.connect);
}

/** One bounded, printable, redacted line for the operator's log. */
function logLine(stderr: string): string {
  const last = stderr.split('\n').map((line) => line.trim()).filter(Boolean).slice(-2).join(' | ');
  return redactUrl(last.replace(/[^\x20-\x7e]/g, '?')).slice(0, 300);
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** How git reaches the checked addresses and nothing else, and the credential it sends (in its environment). */
function transport(checked: CheckedRepository, credential: RepositoryCredential | null): { url: string; config: Array<[string, string]> } {
  const { parsed, addresses } = checked;
  const config: Array<[string, string]> = [];
  const named = parsed.host !== null && addresses.length > 0 && parsed.host !== addresses[0];
  if (parsed.scheme === 'https' || parsed.scheme === 'http') {
    if (named) {
      // curl connects to these addresses for this host: the ones checked, whatever DNS answers later.
      config.push(['http.curloptResolve', `${parsed.host}:${parsed.port}:${addresses.map((a) => (isIPv6(a) ? `[${a}]` : a)).join(',')}`]);
    }
    if (credential) {
      const basic = Buffer.from(`${credential.username}:${credential.password}`).toString('base64');
      config.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
    }
  }
  if (parsed.scheme === 'ssh') {
    const key = env().repositorySshKey;
    const options = [
      '-F', '/dev/null',
      '-o', 'BatchMode=yes',
      '-o', 'StrictHostKeyChecking=accept-new',
      '-o', `UserKnownHostsFile=${quote(path.join(env().dataDir, 'repositories', 'known_hosts'))}`,
      // The host key is kept by host and port (ssh's own [host]:port form), so two servers on one host's ports are apart.
      '-o', quote(`HostKeyAlias=${parsed.port && parsed.port !== 22 ? `[${parsed.host}]:${parsed.port}` : parsed.host}`),
      '-o', 'IdentityAgent=none',
      '-o', 'ControlMaster=no',
      '-o', 'ControlPath=none',
      '-o', 'PasswordAuthentication=no',
      '-o', 'KbdInteractiveAuthentication=no',
      '-o', 'GSSAPIAuthentication=no',
      '-o', 'HostbasedAuthentication=no',
      '-o', 'ConnectTimeout=15',
      ...(key ? ['-o', 'IdentitiesOnly=yes', '-o', `IdentityFile=${quote(key)}`] : ['-o', 'PubkeyAuthentication=no']),
      // ssh connects to the checked address; the host name only names the host key.
      ...(addresses[0] ? ['-o', `HostName=${addresses[0]}`] : []),
    ];
    config.push(['core.sshCommand', `ssh ${options.join(' ')}`]);
  }
  if (parsed.scheme === 'git' && named) {
    // git's daemon protocol resolves the name itself: connect to the checked address instead.
    const address = isIPv6(addresses[0]!) ? `[${addresses[0]}]` : addresses[0]!;
    return { url: parsed.url.replace(/^git:\/\/[^/]+/, `git://${address}:${parsed.port}`), config };
  }
  return { url: parsed.url, config };
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

/**
 * The cache of a factory's location: one folder per factory, holding its current location's
 * only. Nothing fetched for one factory is read for another, and a factory that checks one
 * location after another keeps one cache, not one per location.
 */
function cacheDir(factoryId: string, url: string): { factoryDir: string; gitDir: string } {
  const factoryDir = factoryCacheDir(factoryId);
  return { factoryDir, gitDir: path.join(factoryDir, digest(url)) };
}

/** The folder of a factory's repository cache (exported for its test). */
export const factoryCacheDir = (factoryId: string) => path.join(env().dataDir, 'repositories', 'factories', digest(factoryId));

/** Bytes in a folder's files, all levels down. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Every cache of the factory but `keep`, and the caches of the layout before one folder per factory. */
function dropOtherCaches(factoryDir: string, keep: string): void {
  for (const name of existsSync(factoryDir) ? readdirSync(factoryDir) : []) {
    if (path.join(factoryDir, name) !== keep) rmSync(path.join(factoryDir, name), { recursive: true, force: true });
  }
  const root = path.dirname(path.dirname(factoryDir));
  for (const name of readdirSync(root)) {
    if (/^[0-9a-f]{24}$/.test(name)) rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

let gitVersionChecked: Promise<string | null> | undefined;

/** Refuses to fetch with a git too old for the fetch's settings (repository-git.ts, MIN_GIT_VERSION); asked once a process. */
async function requireGitVersion(local: { home: string; protocols: string; timeoutMs: number }): Promise<void> {
  gitVersionChecked ??= runGit(['--version'], { ...local, maxStdout: 1024 }).then(
    (output) => gitVersionProblem(output.toString('utf8')),
    (error: unknown) => {
      gitVersionChecked = undefined;
      throw error;
    },
  );
  const problem = await gitVersionChecked;
  if (problem) throw new RepositoryError('no_git', problem);
}

/**
 * Checks the location, fetches the branch and reads the definition files of
 * its newest commit. Throws RepositoryError with the category to show.
 */
export async function fetchRepository(factoryId: string, target: RepositoryTarget, options: { lookup?: Lookup } = {}): Promise<RepositorySnapshot> {
  const checked = await checkRepositoryAccess(target.url, target.access, options.lookup);
  const { factoryDir, gitDir } = cacheDir(factoryId, checked.parsed.url);
  mkdirSync(factoryDir, { recursive: true });
  dropOtherCaches(factoryDir, gitDir);
  const home = mkdtempSync(path.join(os.tmpdir(), 'tripline-git-'));
  const local = { home, protocols: '', timeoutMs: GIT_TIMEOUT_MS };
  try {
    await requireGitVersion(local);
    if (!existsSync(path.join(gitDir, 'HEAD'))) {
      await runGit(['init', '--bare', '--quiet', gitDir], { ...local, maxStdout: 64 * 1024 });
    }
    // One ref whatever the branch: a cache holds one location's branch, and a ref named after the branch
    // would block the fetch of a branch whose name has it as a folder (release, then release/prod).
    const ref = 'refs/tripline/head';
    const { url, config } = transport(checked, target.credential);
    await runGit(
      [
        'fetch', '--quiet', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', '--force',
        '--depth=1',
        // Leave out blobs no definition can be (a folder path is read directly, with no filter to ask for).
        ...(checked.parsed.form === 'path' ? [] : [`--filter=blob:limit=${MAX_DEFINITION_BYTES}`]),
        '--', url, `+refs/heads/${target.branch}:${ref}`,
      ],
      {
        ...local,
        gitDir,
        protocols: checked.parsed.scheme,
        config,
        timeoutMs: FETCH_TIMEOUT_MS,
        maxStdout: 64 * 1024,
        watch: { dir: path.join(gitDir, 'objects'), maxBytes: MAX_FETCH_BYTES },
      },
    );
    const commit = (await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { ...local, gitDir, maxStdout: 1024 })).toString('utf8').trim();
    const snapshot = { commit, files: await readCommitFiles(gitDir, commit, home) };
    if (folderBytes(gitDir) > MAX_CACHE_BYTES) rmSync(gitDir, { recursive: true, force: true });
    return snapshot;
  } catch (error) {
    // A failed fetch leaves no cache (nor a half-written pack): the next one starts afresh.
    rmSync(gitDir, { recursive: true, force: true });
    if (!(error instanceof GitFailure)) throw error;
    const refused = classifyGitFailure(error, target.branch);
    log('repositories').warn({ factoryId, category: refused.category, stderr: logLine(error.stderr) }, 'repository fetch failed');
    throw refused;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The files under webhooks/ of a fetched commit. Nothing here touches the network (no transport is allowed). */
async function readCommitFiles(gitDir: string, commit: string, home: string): Promise<DefinitionFiles> {
  const local = { gitDir, home, protocols: '', timeoutMs: GIT_TIMEOUT_MS };
  const listing = (await runGit(['ls-tree', '-r', '-z', commit, '--', `${WEBHOOKS_DIR}/`], { ...local, maxStdout: 1024 * 1024 })).toString('utf8');
  const entries = listing.split('\0').filter(Boolean);
  if (entries.length === 0) {
    // A branch without the folder is far more likely a wrong branch than a wish to delete every webhook.
    throw new RepositoryError(
      'content',
      `Commit ${commit.slice(0, 12)} has no ${WEBHOOKS_DIR}/ folder at the root. To delete every webhook, keep an empty ${WEBHOOKS_DIR}/.gitkeep.`,
    );
  }
  if (entries.length > MAX_DEFINITION_FILES) throw new RepositoryError('content', `${WEBHOOKS_DIR}/ holds more than ${MAX_DEFINITION_FILES} files`);
  const blobs = entries
    .map((entry) => {
      const tab = entry.indexOf('\t');
      const [, type, object] = entry.slice(0, tab).split(' ');
      return { type, object: object!, file: entry.slice(tab + 1) };
    })
    .filter((entry) => entry.type === 'blob');

  // Blobs over the limit were left out by the fetch's filter: list them without asking for them.
  const objects = (await runGit(['rev-list', '--objects', '--missing=print', '--no-walk', commit, '--', `${WEBHOOKS_DIR}/`], { ...local, maxStdout: 1024 * 1024 }))
    .toString('utf8')
    .split('\n');
  const missing = new Set(objects.filter((line) => line.startsWith('?')).map((line) => line.slice(1).trim()));
  const present = blobs.filter((blob) => !missing.has(blob.object));
  const sizes = new Map<string, number>();
  if (present.length > 0) {
    const checks = (await runGit(['cat-file', '--batch-check'], { ...local, input: present.map((b) => `${b.object}\n`).join(''), maxStdout: 1024 * 1024 }))
      .toString('utf8')
      .split('\n');
    for (const line of checks) {
      const [object, , size] = line.split(' ');
      if (object && size) sizes.set(object, Number(size));
    }
  }
  const small = present.filter((blob) => (sizes.get(blob.object) ?? Infinity) <= MAX_DEFINITION_BYTES);
  const contents = new Map<string, string>();
  if (small.length > 0) {
    const output = await runGit(['cat-file', '--batch'], {
      ...local,
      input: small.map((b) => `${b.object}\n`).join(''),
      maxStdout: small.length * (MAX_DEFINITION_BYTES + 128),
    });
    let offset = 0;
    while (offset < output.length) {
      const newline = output.indexOf(0x0a, offset);
      if (newline < 0) break;
      const [object, , size] = output.subarray(offset, newline).toString('utf8').split(' ');
      const length = Number(size);
      contents.set(object!, output.subarray(newline + 1, newline + 1 + length).toString('utf8'));
      offset = newline + 1 + length + 1;
    }
  }
  const files: DefinitionFiles = {};
  // A file that was too large to fetch or read gets the parser's "larger than" problem.
  for (const blob of blobs) files[blob.file] = contents.get(blob.object) ?? 'x'.repeat(MAX_DEFINITION_BYTES + 1);
  return files;
}

type StoredRepository = {
  configSource: string;
  repoUrl: string | null;
  repoBranch: string;
  repoCredentialEncrypted: string | null;
  repoSetByOperator: boolean;
  appliedCommit: string | null;
  lastApplyError: unknown;
};

async function storedRepository(factoryId: string): Promise<StoredRepository> {
  return prisma.factory.findUniqueOrThrow({
    where: { id: factoryId },
    select: {
      configSource: true,
      repoUrl: true,
      repoBranch: true,
      repoCredentialEncrypted: true,
      repoSetByOperator: true,
      appliedCommit: true,
      lastApplyError: true,
    },
  });
}

const accessFor = (by: Requester): RepositoryAccess => (by.kind === 'operator' ? OPERATOR_ACCESS : env().repositoryAccess);

/** The factory's own repository: its stored location, under the rules of whoever set it. */
function storedTarget(factoryId: string, stored: StoredRepository, by: Requester): RepositoryTarget {
  if (stored.configSource !== 'repository' || !stored.repoUrl) throw new AppError('conflict', 'This factory is not backed by a git repository');
  return {
    url: stored.repoUrl,
    branch: stored.repoBranch,
    credential: stored.repoCredentialEncrypted ? decryptRepositoryCredential(factoryId, stored.repoCredentialEncrypted) : null,
    // A location the operator set with the CLI keeps the operator's rules; every other is checked again against today's.
    access: stored.repoSetByOperator ? OPERATOR_ACCESS : accessFor(by),
  };
}

/** A location being connected or checked, with the credential it would use and store. */
function settingsTarget(factoryId: string, stored: StoredRepository, settings: RepositorySettings, by: Requester): RepositoryTarget & { credentialEncrypted: string | null } {
  const parsed = parseOrRefuse(settings.url);
  let credential = parsed.credential;
  let credentialEncrypted = credential ? encryptRepositoryCredential(factoryId, credential) : null;
  if (!credential && !settings.removeCredential && stored.repoCredentialEncrypted && stored.repoUrl) {
    // The stored credential goes only to the origin it was entered for, never to a new host.
    const storedOrigin = (() => {
      try {
        return repositoryOrigin(parseOrRefuse(stored.repoUrl));
      } catch {
        return null;
      }
    })();
    if (storedOrigin === repositoryOrigin(parsed)) {
      credential = decryptRepositoryCredential(factoryId, stored.repoCredentialEncrypted);
      credentialEncrypted = stored.repoCredentialEncrypted;
    }
  }
  return { url: parsed.url, branch: settings.branch, credential, credentialEncrypted, access: accessFor(by) };
}

/** The errors of a fetch as the adapters show them: refusals as field errors (422), the rest as conflicts naming the field. */
function fetchFailed(error: unknown): never {
  if (error instanceof RepositoryError) {
    if (error.category === 'scheme' || error.category === 'private') throw new AppError('validation_failed', error.message, { url: error.message });
    if (error.category === 'branch') throw new AppError('conflict', error.message, { branch: error.message });
    if (error.category === 'content' || error.category === 'no_git') throw new AppError('conflict', error.message);
    throw new AppError('conflict', error.message, { url: error.message });
  }
  throw error;
}

/** Runs a user's or the operator's fetch: counted against the user's budget, one per factory at a time. */
async function guarded<T>(factoryId: string, by: Requester, job: () => Promise<T>): Promise<T> {
  if (by.kind === 'user') await consumeRepositoryCheck(by.userId);
  return withRepositorySyncLock(factoryId, job);
}

export type RepositoryPreview = { commit: string; plan: Plan; url: string; branch: string };

/** What applying the branch's newest commit would do, without applying it: shown before a sync or a connection. */
export async function previewRepository(factoryId: string, settings: RepositorySettingsInput | undefined, by: Requester): Promise<RepositoryPreview> {
  return guarded(factoryId, by, async () => {
    const stored = await storedRepository(factoryId);
    const target = settings ? settingsTarget(factoryId, stored, repositorySettingsSchema.parse(settings), by) : storedTarget(factoryId, stored, by);
    const snapshot = await fetchRepository(factoryId, target).catch(fetchFailed);
    return { commit: snapshot.commit, plan: await planDefinitions(factoryId, snapshot.files), url: target.url, branch: target.branch };
  });
}

/**
 * Makes a factory repository-backed and applies the branch. When the files
 * cannot apply nothing changes, the factory included (it keeps its kind).
 * `expectedCommit` is the commit whose plan the admin saw: a branch that
 * moved since is refused, so what applies is what was shown.
 */
export async function connectRepository(
  factoryId: string,
  settings: RepositorySettingsInput,
  by: Requester,
  expected: { commit?: string; plan?: string } = {},
): Promise<ApplyOutcome & { commit: string }> {
  return guarded(factoryId, by, async () => {
    const target = settingsTarget(factoryId, await storedRepository(factoryId), repositorySettingsSchema.parse(settings), by);
    const snapshot = await fetchRepository(factoryId, target).catch(fetchFailed);
    checkExpected(snapshot.commit, expected.commit);
    const outcome = await applyDefinitions(factoryId, snapshot.files, {
      source: 'repository',
      switching: true,
      expectedPlan: expected.plan,
      repository: {
        url: target.url,
        branch: target.branch,
        commit: snapshot.commit,
        credentialEncrypted: target.credentialEncrypted,
        setByOperator: by.kind === 'operator',
      },
    });
    const failed = outcome.ok && connectionFailure(snapshot.commit, outcome);
    if (failed) await recordApplyFailure(factoryId, failed);
    return { ...outcome, commit: snapshot.commit };
  });
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
export async function syncRepository(
  factoryId: string,
  options: SyncOptions,
): Promise<SyncResult> {
  const result = await guarded(factoryId, options.by, () => syncOnce(factoryId, options));
  metrics().syncs.inc({ outcome: result.status });
  return result;
}

/** `expectedCommit` and `expectedPlan`: what the admin checked (refused when the branch or the plan moved since). */
type SyncOptions = { by: Requester; expectedCommit?: string; expectedPlan?: string; force?: boolean; lookup?: Lookup };

async function syncOnce(factoryId: string, options: SyncOptions): Promise<SyncResult> {
  const stored = await storedRepository(factoryId);
  const repository = storedTarget(factoryId, stored, options.by);
  const lastFailure = (stored.lastApplyError as ApplyFailure | null) ?? null;
  let snapshot: RepositorySnapshot;
  try {
    snapshot = await fetchRepository(factoryId, repository, { lookup: options.lookup });
  } catch (error) {
    if (!(error instanceof RepositoryError)) throw error;
    return recordFailure(factoryId, lastFailure, { commit: null, message: error.message, problems: [] });
  }
  checkExpected(snapshot.commit, options.expectedCommit);
  const failedBefore = lastFailure?.commit === snapshot.commit;
  if (snapshot.commit === stored.appliedCommit && !options.force && !failedBefore) {
    // Back on the applied commit (a revert, or a fetch that works again): an older failure no longer describes the branch.
    if (lastFailure) await clearApplyFailure(factoryId);
    return { status: 'up_to_date', commit: snapshot.commit };
  }

  const outcome = await applyDefinitions(factoryId, snapshot.files, {
    source: 'repository',
    expectedPlan: options.expectedPlan,
    repository: { url: repository.url, branch: repository.branch, commit: snapshot.commit },
  });
  if (outcome.ok) {
    const failed = connectionFailure(snapshot.commit, outcome);
    return failed ? recordFailure(factoryId, lastFailure, failed) : { status: 'applied', commit: snapshot.commit, outcome };
  }
  const count = outcome.plan.problems.length;
  return recordFailure(factoryId, lastFailure, {
    commit: snapshot.commit,
    message: `Commit ${snapshot.commit.slice(0, 12)} did not apply: ${count} ${count === 1 ? 'problem' : 'problems'} in the definition files`,
    problems: outcome.plan.problems,
  });
}

/** Applies the commit an admin checked: connecting `repository`, or syncing the factory's own (dashboard and API alike). */
export async function applyRepository(
  factoryId: string,
  input: { repository?: RepositorySettingsInput; commit: string; plan?: string },
  by: Requester,
): Promise<{ applied: boolean; commit: string; problems: DefinitionProblem[] }> {
  if (input.repository) {
    const outcome = await connectRepository(factoryId, input.repository, by, { commit: input.commit, plan: input.plan });
    return { applied: outcome.ok, commit: outcome.commit, problems: outcome.ok ? [] : outcome.plan.problems };
  }
  const result = await syncRepository(factoryId, { by, expectedCommit: input.commit, expectedPlan: input.plan, force: true });
  if (result.status === 'failed' && result.commit === null) throw new AppError('conflict', result.failure.message);
  return { applied: result.status !== 'failed', commit: result.commit ?? input.commit, problems: result.status === 'failed' ? result.failure.problems : [] };
}

/**
 * A commit whose webhooks applied but whose connection steps failed (the
 * provider refused or did not answer) is recorded as failed, so the
 * periodic check applies it again and the steps are retried; the webhooks
 * serve as applied meanwhile.
 */
function connectionFailure(commit: string, outcome: ApplyOutcome & { ok: true }): Omit<ApplyFailure, 'at'> | null {
  const failed = outcome.connections.flatMap((c) => (c.ok ? [] : [c]));
  if (failed.length === 0) return null;
  return {
    commit,
    message: `Commit ${commit.slice(0, 12)} applied, but ${failed.length} ${failed.length === 1 ? 'connection' : 'connections'} did not: tried again at the next check`,
    problems: failed.map((c) => ({ file: definitionPath(c.name), key: 'connection', message: c.message })),
  };
}

async function recordFailure(factoryId: string, previous: ApplyFailure | null, failure: Omit<ApplyFailure, 'at'>): Promise<SyncResult> {
  // The periodic check retries a failing commit; the record changes only when the failure does.
  const same = previous && previous.commit === failure.commit && previous.message === failure.message && JSON.stringify(previous.problems) === JSON.stringify(failure.problems);
  if (!same) await recordApplyFailure(factoryId, failure);
  return { status: 'failed', commit: failure.commit, failure };
}
