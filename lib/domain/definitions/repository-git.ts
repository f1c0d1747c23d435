import 'server-only';
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// How Tripline runs git for a repository fetch: never with the server's
// environment. The server may hold credentials (an SSH agent, keys in
// ~/.ssh, credential helpers and url rewrites in ~/.gitconfig, proxy
// settings) that reach repositories no dashboard user should read, so git
// gets an allowlisted environment: PATH, a fresh temporary HOME, C locale,
// no global or system configuration, no prompts, no askpass, no credential
// helper, one allowed transport, and every setting below in GIT_CONFIG_*
// variables (never on the command line, where `ps` shows them to every
// local user; the credential header travels the same way). Each command has
// a time limit and output limits, and runs in its own process group so the
// limit also stops ssh and git's remote helpers. Its memory is bounded too: a
// hostile server can send a small pack that inflates to gigabytes (a blob of
// zeros, a delta that repeats its base) or millions of refs, so git and every
// process it starts get an address-space limit (`ulimit -v`, set by /bin/sh
// before it execs git; where the system has none, git runs without), one
// thread per pack, two malloc arenas, and large blobs hashed as they stream in
// rather than held whole.

export type GitFailureKind = 'exit' | 'timeout' | 'too_large' | 'missing';

/** A git command that failed; `stderr` is its last bytes only (bounded before anyone parses it). */
export class GitFailure extends Error {
  constructor(
    readonly kind: GitFailureKind,
    readonly stderr: string,
  ) {
    super(`git ${kind}`);
    this.name = 'GitFailure';
  }
}

/** How much of git's standard error is kept (its last bytes, where git puts "fatal: ..."). */
export const STDERR_LIMIT = 2048;

export type GitOptions = {
  gitDir?: string;
  /** The temporary HOME for this operation (created and removed by the caller). */
  home: string;
  /** GIT_ALLOW_PROTOCOL: the one transport a fetch may use; '' for commands that must never touch the network. */
  protocols: string;
  /** Settings for this command, added to the fixed ones (values may be secret: they go in the environment). */
  config?: Array<[string, string]>;
  timeoutMs: number;
  /** Standard output beyond this stops git (too large). */
  maxStdout: number;
  input?: string;
  /** Stops git when this folder grows by more than maxBytes (what a fetch writes). */
  watch?: { dir: string; maxBytes: number };
};

const FIXED_CONFIG: Array<[string, string]> = [
  ['protocol.allow', 'never'],
  ['credential.helper', ''],
  ['core.askPass', ''],
  ['http.followRedirects', 'false'],
  ['http.lowSpeedLimit', '1024'],
  ['http.lowSpeedTime', '20'],
  ['transfer.fsckObjects', 'true'],
  // Always keep the received pack as one file, so the size watch sees it grow.
  ['fetch.unpackLimit', '1'],
  ['transfer.unpackLimit', '1'],
  ['fetch.recurseSubmodules', 'false'],
  ['submodule.recurse', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['core.hooksPath', os.devNull],
  // One thread to index a received pack, not one per core: a fetch is small, and a hostile one should not take the machine.
  ['pack.threads', '1'],
  // A blob over 1 MB is hashed as it streams in, never held whole (the default is 512 MB). Definition files are
  // 16 KB at most; a larger blob only arrives from a server that ignored the fetch's blob filter.
  ['core.bigFileThreshold', '1m'],
];

/**
 * The address space git and each process it starts may map, each on its own (a fetch runs git,
 * its remote helper and index-pack at once): far above what a fetch of definition files needs (a
 * few tens of MB; git maps packs, which are 32 MB at most here, and each malloc arena reserves
 * 64 MB), and a bound on what a hostile server can make one of them allocate.
 */
export const GIT_ADDRESS_SPACE_BYTES = 1024 ** 3;

/** The whole environment git runs with. Nothing of the server's is inherited but PATH. */
export function gitEnvironment(options: Pick<GitOptions, 'home' | 'protocols' | 'config'>): Record<string, string> {
  const config = [...FIXED_CONFIG, ...(options.config ?? [])];
  const environment: Record<string, string> = {
    PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin',
    HOME: options.home,
    XDG_CONFIG_HOME: path.join(options.home, '.config'),
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: options.protocols,
    GIT_CONFIG_COUNT: String(config.length),
    // Two malloc arenas, not eight per core: each reserves address space, which the limit counts.
    MALLOC_ARENA_MAX: '2',
  };
  config.forEach(([key, value], index) => {
    environment[`GIT_CONFIG_KEY_${index}`] = key;
    environment[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return environment;
}

function folderSize(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    try {
      total += entry.isDirectory() ? folderSize(full) : statSync(full).size;
    } catch {
      // Renamed or removed while git works: counted on the next pass.
    }
  }
  return total;
}

/**
 * The command that starts git with `args` under the address-space limit: /bin/sh sets it and execs
 * git, the arguments passed as the script's own ("$@": never parsed by the shell). Where the
 * system refuses the limit (ulimit -v is not everywhere), git still runs, unbounded, as before.
 * Windows has no /bin/sh and no such limit: git directly.
 */
function gitCommand(args: string[]): [string, string[]] {
  if (process.platform === 'win32') return ['git', args];
  return ['/bin/sh', ['-c', `ulimit -v ${GIT_ADDRESS_SPACE_BYTES / 1024} 2>/dev/null; exec git "$@"`, 'git', ...args]];
}

/** The shell's own "not found" (exit 127): no git on PATH. */
const GIT_NOT_FOUND = 127;

/** Runs git with `args` (never through a shell's parsing) and resolves with its standard output. */
export function runGit(args: string[], options: GitOptions): Promise<Buffer> {
  const fullArgs = options.gitDir ? ['--git-dir', options.gitDir, ...args] : args;
  return new Promise((resolve, reject) => {
    // Measured before git starts: a fast first write must count against the limit.
    const baseline = options.watch ? folderSize(options.watch.dir) : 0;
    const [command, argv] = gitCommand(fullArgs);
    const child = spawn(command, argv, {
      env: gitEnvironment(options) as NodeJS.ProcessEnv,
      cwd: options.home,
      // Its own process group: the limits stop git and everything it started.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let stopped: GitFailureKind | null = null;
    const stop = (kind: GitFailureKind) => {
      if (stopped) return;
      stopped = kind;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const watcher = options.watch
      ? setInterval(() => {
          if (folderSize(options.watch!.dir) - baseline > options.watch!.maxBytes) stop('too_large');
        }, 200)
      : null;

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > options.maxStdout) return stop('too_large');
      stdout.push(chunk);
    });
    child.stderr.setEncoding('latin1');
    child.stderr.on('data', (chunk: string) => {
      // Only the tail is kept: a host that floods stderr costs nothing.
      stderr = (stderr + chunk).slice(-STDERR_LIMIT);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');

    const finish = (error: GitFailure | null) => {
      clearTimeout(timer);
      if (watcher) clearInterval(watcher);
      if (error) reject(error);
      else resolve(Buffer.concat(stdout));
    };
    child.on('error', (error: NodeJS.ErrnoException) => finish(new GitFailure(error.code === 'ENOENT' ? 'missing' : 'exit', '')));
    child.on('exit', () => {
      // A stopped git's descendants may still hold its pipes open: stop reading them.
      if (stopped) {
        child.stdout.destroy();
        child.stderr.destroy();
      }
    });
    child.on('close', (code) => {
      if (stopped) return finish(new GitFailure(stopped, stderr));
      if (code === GIT_NOT_FOUND && command !== 'git') return finish(new GitFailure('missing', ''));
      finish(code === 0 ? null : new GitFailure('exit', stderr));
    });
  });
}

/**
 * The oldest git whose settings the fetch relies on: every protective setting reaches git through
 * GIT_CONFIG_COUNT (2.31), and the pinned address through http.curloptResolve (2.37). An older git
 * ignores keys it does not know without a word: it would fetch with the server's own ssh keys and
 * config, and connect to whatever address the name resolves to at that moment.
 */
export const MIN_GIT_VERSION = [2, 37] as const;

/** Why `git --version`'s answer is too old to fetch with, or null. */
export function gitVersionProblem(versionLine: string): string | null {
  const match = /^git version (\d+)\.(\d+)/.exec(versionLine.trim());
  const needed = `${MIN_GIT_VERSION[0]}.${MIN_GIT_VERSION[1]}`;
  if (!match) return `the server's git did not say its version (it needs git ${needed} or newer)`;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major > MIN_GIT_VERSION[0] || (major === MIN_GIT_VERSION[0] && minor >= MIN_GIT_VERSION[1])) return null;
  return `the server's git is ${major}.${minor}: repositories need git ${needed} or newer, whose settings keep a fetch to the checked address and away from the server's own keys`;
}
